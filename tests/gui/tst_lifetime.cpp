// SPDX-License-Identifier: GPL-3.0-or-later
// Object lifetimes in the editor, found by the sanitizers (these tests are what the ASan/UBSan
// stage of CI runs them through): deleting, cutting, undoing and redoing blocks that carry wires
// (the scene read a wire's connection after deleting the wire), and closing the window while the
// stop-time field has focus and an edit (its editingFinished reached the half-destroyed window);
// and a Run of a model with nothing to solve.
#include "support/test_support.hpp"

#include "gui_test_support.hpp"

#include "gui/run_controller.hpp"
#include "gui/run_series.hpp"

#include <QAction>
#include <QLineEdit>
#include <QThreadPool>
#include <QUndoStack>

using namespace endstop;

class TestLifetime : public QObject {
    Q_OBJECT
    QTemporaryDir m_settings;

private Q_SLOTS:
    void initTestCase() { test::isolateSettings(m_settings); }

    void blocksWithWiresComeAndGo() {
        auto w = test::shownWindow();
        QVERIFY(w);
        gui::Document& doc = w->document();
        doc.reset(test::loadExample("rattling_mass.endstop"), QString());
        const QByteArray original = test::bytes(doc);
        // the slider carries three wires, the ground two
        for (const QString name : {"slider", "ground", "stops"}) {
            w->scene()->selectBlocks({name});
            w->view()->setFocus();
            QTest::keyClick(w->view(), Qt::Key_Delete);
            QVERIFY(!doc.model().find(name.toStdString()));
            doc.undoStack()->undo();
            QCOMPARE(test::bytes(doc), original);
            doc.undoStack()->redo();
            doc.undoStack()->undo();
            w->scene()->selectBlocks({name});
            QTest::keyClick(w->view(), Qt::Key_X, Qt::ControlModifier);
            QVERIFY(!doc.model().find(name.toStdString()));
            doc.undoStack()->undo();
            QCOMPARE(test::bytes(doc), original);
        }
        QCOMPARE(w->scene()->items().size() > qsizetype(doc.model().blocks().size()), true);   // the wires are back
        doc.markClean();
        w.reset();
        QThreadPool::globalInstance()->waitForDone();
    }

    // Run on a model with nothing to solve crashed the window in IDA's tolerance set-up.
    void runningAModelWithoutUnknowns() {
        auto w = test::shownWindow();
        QVERIFY(w);
        w->document().reset(test::modelFromJson(R"({"format": "endstop-project", "formatVersion": 1})"), QString());
        w->action("run")->trigger();
        QVERIFY(QTest::qWaitFor([&] { return !w->runs()->active(); }, 30000));
        QVERIFY(w->runs()->current());
        QCOMPARE(w->runs()->current()->run().state(), core::simulation::RunState::Finished);
        w->document().markClean();
        w.reset();
        QThreadPool::globalInstance()->waitForDone();
    }

    void closingWithAnEditedStopTime() {
        auto w = test::shownWindow();
        QVERIFY(w);
        w->document().reset(test::loadExample("rattling_mass.endstop"), QString());
        auto* field = w->findChild<QLineEdit*>("stopTime");
        QVERIFY(field);
        field->setFocus();
        QTRY_VERIFY(field->hasFocus());
        field->selectAll();
        QTest::keyClicks(field, "3");
        w->document().markClean();
        w.reset();   // editingFinished fires as the field goes: it must reach nothing
        QThreadPool::globalInstance()->waitForDone();
        QVERIFY(!w);
    }
};

QTEST_MAIN(TestLifetime)
#include "tst_lifetime.moc"
