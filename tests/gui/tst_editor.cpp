// SPDX-License-Identifier: GPL-3.0-or-later
// The canvas through real widgets and events: library drag and drop, wiring with the mouse (and
// its refusals), detaching a wire end, moves as one undo step, undo/redo to the exact bytes,
// clipboard with internal wires, rename, delete, and cosmetic edits that never re-validate.
#include "blocks/registry.hpp"
#include "gui/block_item.hpp"
#include "gui/block_library.hpp"
#include "gui/diagnostics_panel.hpp"
#include "gui/main_window.hpp"
#include "gui/rename_editor.hpp"
#include "gui/wire_item.hpp"
#include "gui_test_support.hpp"
#include "support/test_support.hpp"

#include <QAction>
#include <QLineEdit>
#include <QStatusBar>
#include <QMimeData>
#include <QScrollBar>
#include <QTest>
#include <QThreadPool>
#include <QTreeWidget>
#include <QUndoStack>

using namespace endstop;

namespace {

// mass1 - spring1 - ground (translational), an inertia, two constants and a gain
const char* kModel = R"({
  "blocks": [
    {"name": "mass1", "type": "translational.mass", "ui": {"pos": [0, 0]}},
    {"name": "spring1", "type": "translational.spring", "ui": {"pos": [160, 0]}},
    {"name": "ground", "type": "translational.reference", "ui": {"pos": [320, 0]}},
    {"name": "wheel", "type": "rotational.inertia", "ui": {"pos": [0, 160]}},
    {"name": "k1", "type": "signal.constant", "ui": {"pos": [160, 160]}},
    {"name": "k2", "type": "signal.constant", "ui": {"pos": [160, 260]}},
    {"name": "g", "type": "signal.gain", "ui": {"pos": [320, 160]}}
  ],
  "connections": [["mass1.M", "spring1.R"]]
})";

bool connected(const core::model::Model& m, const char* a, const char* b) {
    const core::model::Connection c{*core::model::PortRef::parse(a), *core::model::PortRef::parse(b)};
    return std::find(m.connections().begin(), m.connections().end(), c) != m.connections().end();
}

}   // namespace

class TestEditor : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_settings;
    std::unique_ptr<gui::MainWindow> m_window;
    gui::DiagramScene* scene() const { return m_window->scene(); }
    gui::DiagramView* view() const { return m_window->view(); }
    gui::Document& doc() const { return m_window->document(); }

private Q_SLOTS:
    void initTestCase() { test::isolateSettings(m_settings); }

    void init() {
        m_window = test::shownWindow(QSize(1200, 800));
        QVERIFY(m_window);
        doc().reset(test::modelFromJson(kModel), QString());
        view()->setTransform(QTransform());   // zoom 1, so scene units are pixels
        view()->centerOn(160, 120);
        view()->setFocus();
    }

    void cleanup() {
        doc().markClean();   // no "save changes?" box on close
        m_window.reset();
        QThreadPool::globalInstance()->waitForDone();
    }

    void dragFromLibraryCreatesBlock() {
        QTreeWidget* tree = m_window->library()->tree();
        QTreeWidgetItem* item = m_window->library()->itemFor("translational.damper");
        QVERIFY(item);
        const QModelIndex index = tree->model()->index(tree->indexOfTopLevelItem(item->parent()), 0);
        std::unique_ptr<QMimeData> data(
            tree->model()->mimeData({tree->model()->index(item->parent()->indexOfChild(item), 0, index)}));
        QVERIFY(data && data->hasFormat(gui::kBlockTypeMime));

        const QPoint at = view()->mapFromScene(QPointF(480, 300));
        QDragEnterEvent enter(at, Qt::CopyAction, data.get(), Qt::LeftButton, {});
        QApplication::sendEvent(view()->viewport(), &enter);
        QVERIFY(enter.isAccepted());
        QDragMoveEvent move(at, Qt::CopyAction, data.get(), Qt::LeftButton, {});
        QApplication::sendEvent(view()->viewport(), &move);
        QDropEvent drop(QPointF(at), Qt::CopyAction, data.get(), Qt::LeftButton, {});
        QApplication::sendEvent(view()->viewport(), &drop);

        const core::model::BlockSpec* b = doc().model().find("damper1");
        QVERIFY(b);
        QCOMPARE(b->type, std::string("translational.damper"));
        QCOMPARE(b->ui.x, 480.0);   // dropped where the mouse was, on the grid
        QCOMPARE(b->ui.y, 300.0);
        QVERIFY(scene()->blockItem("damper1"));
        QCOMPARE(scene()->selectedBlockNames(), QStringList{"damper1"});
        QCOMPARE(doc().undoStack()->count(), 1);
    }

    void doubleClickInLibraryAddsBlock() {
        QTreeWidgetItem* item = m_window->library()->itemFor("signal.sine");
        QVERIFY(item);
        Q_EMIT m_window->library()->tree()->itemActivated(item, 0);
        QVERIFY(doc().model().find("sine1"));
    }

    void librarySearchFilters() {
        m_window->library()->searchBox()->setText("damp");
        QVERIFY(!m_window->library()->itemFor("translational.damper")->isHidden());
        QVERIFY(m_window->library()->itemFor("translational.mass")->isHidden());
    }

    void connectingTwoPortsWithTheMouse() {
        test::drag(view(), test::portTip(scene(), "spring1", "C"), test::portTip(scene(), "ground", "R"));
        QVERIFY(connected(doc().model(), "spring1.C", "ground.R"));
        QVERIFY(scene()->wireItem({{"spring1", "C"}, {"ground", "R"}}));
        // signal: output to input, dragged from the input end
        test::drag(view(), test::portTip(scene(), "g", "u"), test::portTip(scene(), "k1", "y"));
        QVERIFY(connected(doc().model(), "g.u", "k1.y"));
        QCOMPARE(doc().undoStack()->count(), 2);
    }

    void wrongDomainWireIsRefused() {
        const QByteArray before = test::bytes(doc());
        test::drag(view(), test::portTip(scene(), "spring1", "C"), test::portTip(scene(), "wheel", "I"));
        QCOMPARE(test::bytes(doc()), before);
        QVERIFY2(scene()->lastStatus().contains("different domains"), qPrintable(scene()->lastStatus()));
        QVERIFY(m_window->statusBar()->currentMessage().contains("different domains"));

        test::drag(view(), test::portTip(scene(), "k1", "y"), test::portTip(scene(), "k2", "y"));
        QCOMPARE(test::bytes(doc()), before);
        QVERIFY2(scene()->lastStatus().contains("two signal outputs"), qPrintable(scene()->lastStatus()));

        test::drag(view(), test::portTip(scene(), "mass1", "M"), test::portTip(scene(), "k1", "y"));
        QCOMPARE(test::bytes(doc()), before);
        QVERIFY(scene()->lastStatus().contains("different domains"));
        QCOMPARE(doc().undoStack()->count(), 0);
    }

    void secondSourceOnAnInputIsRefused() {
        test::drag(view(), test::portTip(scene(), "k1", "y"), test::portTip(scene(), "g", "u"));
        QVERIFY(connected(doc().model(), "k1.y", "g.u"));
        test::drag(view(), test::portTip(scene(), "k2", "y"), test::portTip(scene(), "g", "u"));
        QVERIFY(!connected(doc().model(), "k2.y", "g.u"));
        QVERIFY(scene()->lastStatus().contains("two signal outputs"));
    }

    void draggingAWireEndAwayDisconnects() {
        gui::WireItem* wire = scene()->wireItem({{"mass1", "M"}, {"spring1", "R"}});
        QVERIFY(wire);
        // grab the wire just beyond spring1's port, where a user takes hold of its end
        const QPainterPath& route = wire->route();
        const bool springIsB = wire->connection().b.block == "spring1";
        const double len = route.length();
        const QPointF grab = route.pointAtPercent(route.percentAtLength(springIsB ? len - 14 : 14));
        test::drag(view(), grab, QPointF(100, 400));
        QVERIFY(!connected(doc().model(), "mass1.M", "spring1.R"));
        QVERIFY(!scene()->wireItem({{"mass1", "M"}, {"spring1", "R"}}));
        doc().undoStack()->undo();
        QVERIFY(connected(doc().model(), "mass1.M", "spring1.R"));

        // dropped on another port: the wire moves there in one step
        wire = scene()->wireItem({{"mass1", "M"}, {"spring1", "R"}});
        const QPainterPath& r2 = wire->route();
        const QPointF grab2 = r2.pointAtPercent(r2.percentAtLength(springIsB ? r2.length() - 14 : 14));
        const int steps = doc().undoStack()->index();
        test::drag(view(), grab2, test::portTip(scene(), "ground", "R"));
        QVERIFY(connected(doc().model(), "mass1.M", "ground.R"));
        QVERIFY(!connected(doc().model(), "mass1.M", "spring1.R"));
        QCOMPARE(doc().undoStack()->index(), steps + 1);
    }

    void movingASelectionIsOneUndoStep() {
        // let the validation of the freshly loaded model run and finish
        QTRY_VERIFY(m_window->diagnostics()->validationsStarted() >= 1 && !m_window->diagnostics()->busy());
        const int validations = m_window->diagnostics()->validationsStarted();
        const QByteArray before = test::bytes(doc());
        scene()->selectBlocks({"mass1", "spring1"});
        test::drag(view(), QPointF(0, 0), QPointF(43, 28));
        QCOMPARE(doc().undoStack()->count(), 1);
        QCOMPARE(doc().model().find("mass1")->ui.x, 40.0);   // snapped to the grid
        QCOMPARE(doc().model().find("mass1")->ui.y, 30.0);
        QCOMPARE(doc().model().find("spring1")->ui.x, 200.0);
        // the wire between them followed
        const QPointF tip = test::portTip(scene(), "mass1", "M");
        QCOMPARE(scene()->wireItem({{"mass1", "M"}, {"spring1", "R"}})->endPoint(0), tip);
        // a cosmetic edit never re-validates
        QTest::qWait(300);
        QCOMPARE(m_window->diagnostics()->validationsStarted(), validations);
        doc().undoStack()->undo();
        QCOMPARE(test::bytes(doc()), before);
        QCOMPARE(scene()->blockItem("mass1")->pos(), QPointF(0, 0));
    }

    void undoRedoRestoresTheExactModel() {
        QList<QByteArray> states{test::bytes(doc())};
        const auto step = [&] { states << test::bytes(doc()); };
        test::drag(view(), test::portTip(scene(), "spring1", "C"), test::portTip(scene(), "ground", "R"));
        step();
        scene()->selectBlocks({"spring1"});
        QTest::keyClick(view(), Qt::Key_R);   // rotate
        step();
        QTest::keyClick(view(), Qt::Key_H);   // flip
        step();
        test::drag(view(), QPointF(160, 0), QPointF(160, 60));   // move
        step();
        QVERIFY(scene()->renameBlock("spring1", "spring_main"));
        step();
        QVERIFY(!doc().apply(core::model::SetParameter{"spring_main", "stiffness", 2500.0}, "set"));
        step();
        scene()->selectBlocks({"mass1"});
        QTest::keyClick(view(), Qt::Key_Delete);
        step();
        QCOMPARE(doc().undoStack()->count(), 7);
        for (qsizetype i = states.size() - 1; i > 0; --i) {
            QVERIFY2(test::bytes(doc()) == states[i], qPrintable(QString("undo step %1").arg(i)));
            m_window->action("undo")->trigger();
        }
        QCOMPARE(test::bytes(doc()), states[0]);
        for (qsizetype i = 1; i < states.size(); ++i) {
            QTest::keyClick(view(), Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);   // redo
            QCOMPARE(test::bytes(doc()), states[i]);
        }
        // the canvas follows the model: one item per block and per connection
        QCOMPARE(scene()->blockItems().size(), static_cast<qsizetype>(doc().model().blocks().size()));
    }

    void copyPasteDuplicatesBlocksWithInternalWires() {
        scene()->selectBlocks({"mass1", "spring1"});
        QTest::keyClick(view(), Qt::Key_C, Qt::ControlModifier);
        QTest::keyClick(view(), Qt::Key_V, Qt::ControlModifier);
        const core::model::Model& m = doc().model();
        QVERIFY(m.find("mass2"));
        QVERIFY(m.find("spring2"));
        QVERIFY(connected(m, "mass2.M", "spring2.R"));
        QCOMPARE(m.connections().size(), std::size_t(2));   // no wire to the originals
        // beside the originals, in free space (not one grid step over them)
        QVERIFY(!scene()->blockItem("mass2")->sceneBoundingRect().intersects(
            scene()->blockItem("mass1")->sceneBoundingRect()));
        QVERIFY(!scene()->blockItem("spring2")->sceneBoundingRect().intersects(
            scene()->blockItem("spring1")->sceneBoundingRect()));
        QCOMPARE(scene()->selectedBlockNames(), (QStringList{"mass2", "spring2"}));
        QCOMPARE(doc().undoStack()->count(), 1);   // the paste is one step
        // duplicate the pasted pair: fresh names again
        QTest::keyClick(view(), Qt::Key_D, Qt::ControlModifier);
        QVERIFY(m.find("mass3") && m.find("spring3"));
        QVERIFY(connected(m, "mass3.M", "spring3.R"));
        QCOMPARE(m.blocks().size(), std::size_t(11));
    }

    void cutRemovesAndPasteRestores() {
        scene()->selectBlocks({"spring1"});
        QTest::keyClick(view(), Qt::Key_X, Qt::ControlModifier);
        QVERIFY(!doc().model().find("spring1"));
        QVERIFY(doc().model().connections().empty());
        QTest::keyClick(view(), Qt::Key_V, Qt::ControlModifier);
        QVERIFY(doc().model().find("spring1"));   // the name is free again
    }

    void renameWithF2() {
        scene()->selectBlocks({"spring1"});
        QTest::keyClick(view(), Qt::Key_F2);
        gui::RenameEditor* editor = scene()->renameEditor();
        QVERIFY(editor);
        QTest::keyClicks(view(), "soft");   // replaces the selected name
        QTest::keyClick(view(), Qt::Key_Return);
        QVERIFY(doc().model().find("soft"));
        QVERIFY(connected(doc().model(), "mass1.M", "soft.R"));   // connections follow
        QVERIFY(scene()->blockItem("soft"));

        scene()->selectBlocks({"soft"});
        QTest::keyClick(view(), Qt::Key_F2);
        QTest::keyClicks(view(), "2fast");
        QTest::keyClick(view(), Qt::Key_Return);
        QVERIFY(doc().model().find("soft"));
        QVERIFY(scene()->lastStatus().contains("letters, digits"));
        QVERIFY(!scene()->renameBlock("soft", "ground"));
        QVERIFY(scene()->lastStatus().contains("already exists"));
    }

    void deleteRemovesBlocksAndTheirWires() {
        scene()->selectBlocks({"spring1"});
        QTest::keyClick(view(), Qt::Key_Delete);
        QVERIFY(!doc().model().find("spring1"));
        QVERIFY(doc().model().connections().empty());
        QVERIFY(!scene()->blockItem("spring1"));
        QCOMPARE(scene()->items().size(), static_cast<qsizetype>(doc().model().blocks().size()));   // no wire left
        doc().undoStack()->undo();
        QVERIFY(connected(doc().model(), "mass1.M", "spring1.R"));
        QVERIFY(scene()->wireItem({{"mass1", "M"}, {"spring1", "R"}}));
    }

    void rubberBandSelects() {
        // from empty canvas above-left of mass1 and spring1 to below-right of them
        test::drag(view(), QPointF(-60, -60), QPointF(200, 40));
        QCOMPARE(scene()->selectedBlockNames(), (QStringList{"mass1", "spring1"}));
        QCOMPARE(doc().undoStack()->count(), 0);   // selecting is no edit
    }

    void panAndZoom() {
        const int h = view()->horizontalScrollBar()->value();
        const QPointF from(240, 80);
        test::mouse(view(), QEvent::MouseButtonPress, from, Qt::MiddleButton);
        test::mouse(view(), QEvent::MouseMove, from + QPointF(-50, 0), Qt::MiddleButton);
        test::mouse(view(), QEvent::MouseButtonRelease, from + QPointF(-50, 0), Qt::MiddleButton);
        QCOMPARE(view()->horizontalScrollBar()->value(), h + 50);
        QTest::keyPress(view(), Qt::Key_Space);         // space + left drag pans too, and selects nothing
        const QPoint at = view()->mapFromScene(from);   // in viewport pixels: the scene moves under the mouse
        const auto send = [this](QEvent::Type type, QPoint p) {
            QMouseEvent e(type, QPointF(p), view()->viewport()->mapToGlobal(QPointF(p)),
                          type == QEvent::MouseMove ? Qt::NoButton : Qt::LeftButton,
                          type == QEvent::MouseButtonRelease ? Qt::NoButton : Qt::LeftButton, {});
            QApplication::sendEvent(view()->viewport(), &e);
        };
        send(QEvent::MouseButtonPress, at);
        for (int dx : {10, 20, 30, 40}) send(QEvent::MouseMove, at + QPoint(dx, 0));
        send(QEvent::MouseButtonRelease, at + QPoint(40, 0));
        QTest::keyRelease(view(), Qt::Key_Space);
        QCOMPARE(view()->horizontalScrollBar()->value(), h + 10);
        QVERIFY(scene()->selectedItems().isEmpty());

        const double z = view()->zoom();
        const QPoint c = view()->viewport()->rect().center();
        QWheelEvent wheel(QPointF(c), view()->viewport()->mapToGlobal(QPointF(c)), {}, QPoint(0, 120), Qt::NoButton, {},
                          Qt::NoScrollPhase, false);
        QApplication::sendEvent(view()->viewport(), &wheel);
        QVERIFY(view()->zoom() > z);
        m_window->action("fit")->trigger();
        const QRectF visible = view()->mapToScene(view()->viewport()->rect()).boundingRect();
        QVERIFY(visible.contains(scene()->itemsBoundingRect()));
        scene()->selectBlocks({"k2"});
        m_window->action("zoomSelection")->trigger();
        QVERIFY(view()
                    ->mapToScene(view()->viewport()->rect())
                    .boundingRect()
                    .contains(scene()->blockItem("k2")->sceneBoundingRect()));
        QCOMPARE(doc().undoStack()->count(), 0);   // the view is not the document
    }

    void doubleClickOnTheLabelRenames() {
        gui::BlockItem* item = scene()->blockItem("ground");
        const QPointF label = item->mapToScene(item->labelRect().center());
        QTest::mouseDClick(view()->viewport(), Qt::LeftButton, {}, view()->mapFromScene(label));
        QVERIFY(scene()->renameEditor());
        QTest::keyClicks(view(), "wall_rh");   // R and H type letters here, they do not rotate or flip
        QTest::keyClick(view(), Qt::Key_Return);
        QVERIFY(doc().model().find("wall_rh"));
        QCOMPARE(doc().model().find("wall_rh")->ui.rotation, 0);
        QVERIFY(!doc().model().find("wall_rh")->ui.flipped);
        QCOMPARE(doc().undoStack()->count(), 1);
    }

    void clickingADiagnosticSelectsItsBlock() {
        m_window->diagnostics()->validateNow();
        QTRY_VERIFY(!m_window->diagnostics()->busy() && m_window->diagnostics()->list()->topLevelItemCount() > 0);
        QTreeWidget* list = m_window->diagnostics()->list();
        QTreeWidgetItem* target = nullptr;
        for (int i = 0; i < list->topLevelItemCount(); ++i)
            if (list->topLevelItem(i)->data(1, Qt::UserRole).toString() == "g") target = list->topLevelItem(i);
        QVERIFY2(target, "the unconnected gain input is reported");
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualItemRect(target).center());
        QCOMPARE(scene()->selectedBlockNames(), QStringList{"g"});
    }
};

QTEST_MAIN(TestEditor)
#include "tst_editor.moc"
