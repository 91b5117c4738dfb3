// SPDX-License-Identifier: GPL-3.0-or-later
// What a new user meets in the first hour, through the real widgets (offscreen): block help that
// contains '<' is shown whole (Library, canvas, dialog); Ctrl+Shift+S is Save As on any desktop;
// a bundled example opens as an untitled copy and file dialogs start in the documents folder; the
// model summary follows undo, redo and delete; new and pasted blocks land in free space; a port
// that would refuse the dragged wire says so before the mouse is released.
#include "blocks/registry.hpp"
#include "gui/block_item.hpp"
#include "gui/block_library.hpp"
#include "gui/main_window.hpp"
#include "gui/param_dialog.hpp"
#include "gui/param_form.hpp"
#include "gui/property_panel.hpp"
#include "gui_test_support.hpp"
#include "support/test_support.hpp"

#include <QAction>
#include <QComboBox>
#include <QFileDialog>
#include <QGraphicsPathItem>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QSignalSpy>
#include <QTextDocument>
#include <QThreadPool>
#include <QTreeWidget>
#include <QUndoStack>

using namespace endstop;

namespace {

const char* kModel = R"({
  "blocks": [
    {"name": "mass1", "type": "translational.mass", "ui": {"pos": [0, 0]}},
    {"name": "spring1", "type": "translational.spring", "ui": {"pos": [160, 0]}},
    {"name": "ground", "type": "translational.reference", "ui": {"pos": [320, 0]}},
    {"name": "wheel", "type": "rotational.inertia", "ui": {"pos": [0, 160]}},
    {"name": "stop", "type": "translational.hard_stop", "ui": {"pos": [160, 160]}}
  ],
  "connections": [["mass1.M", "spring1.R"]]
})";

QString plain(const QString& richText) {
    QTextDocument d;
    d.setHtml(richText);
    return d.toPlainText();
}

// Answers the next modal file dialog by cancelling it; what it showed lands in the members.
class FileDialogAnswer : public QObject {
public:
    FileDialogAnswer() {
        auto* timer = new QTimer(this);
        QObject::connect(timer, &QTimer::timeout, this, [this, timer] {
            auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
            if (!dialog) return;
            directory = dialog->directory().absolutePath();
            const QStringList files = dialog->selectedFiles();
            file = files.isEmpty() ? QString() : files.front();
            timer->stop();
            dialog->reject();
        });
        timer->start(10);
    }
    QString directory, file;
};

}   // namespace

class TestFirstHour : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_settings;
    std::unique_ptr<gui::MainWindow> m_window;
    gui::DiagramScene* scene() const { return m_window->scene(); }
    gui::DiagramView* view() const { return m_window->view(); }
    gui::Document& doc() const { return m_window->document(); }
    QString example(const char* name) const { return test::sourcePath(QStringLiteral("resources/examples/") + name); }
    QString summary() const {
        QApplication::processEvents();   // the panel rebuilds once per burst of signals
        const auto* label = m_window->properties()->findChild<QLabel*>("modelSummary");
        return label ? label->text() : QString();
    }

private Q_SLOTS:
    void initTestCase() { test::isolateSettings(m_settings); }

    void init() {
        m_window = test::shownWindow(QSize(1200, 800));
        QVERIFY(m_window);
        doc().reset(test::modelFromJson(kModel), QString());
        view()->setTransform(QTransform());
        view()->centerOn(160, 120);
        view()->setFocus();
    }

    void cleanup() {
        doc().markClean();
        m_window.reset();
        QThreadPool::globalInstance()->waitForDone();
    }

    // 1. the hard stop's help reads "x >= upper_bound or x <= lower_bound ...": all of it is shown
    void helpWithALessThanSignIsShownWhole() {
        const std::string help = blocks::registry().find("translational.hard_stop")->info.help;
        QVERIFY(help.find('<') != std::string::npos);
        const QString tail = QStringLiteral("(3, 4 release and 5 impact are instantaneous).");
        const QString library = m_window->library()->itemFor("translational.hard_stop")->toolTip(0);
        QVERIFY2(plain(library).contains(QString::fromStdString(help)), qPrintable(plain(library)));
        QVERIFY(plain(scene()->blockItem("stop")->toolTip()).contains(tail));
        gui::ParamDialog dialog(doc(), "stop", m_window.get());
        const auto* header = dialog.findChild<QLabel*>("blockHelp");
        QVERIFY(header);
        QVERIFY2(plain(header->text()).contains(tail), qPrintable(header->text()));
        QVERIFY(plain(header->text()).contains("x <= lower_bound"));
    }

    // 2. Save As has its own key on a bare X server and shows it in the File menu
    void ctrlShiftSIsSaveAs() {
        QAction* saveAs = m_window->action("saveAs");
        QCOMPARE(saveAs->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
        QMenu* file = m_window->menuBar()->actions().front()->menu();
        QVERIFY(file && file->actions().contains(saveAs));
        FileDialogAnswer answer;
        QSignalSpy triggered(saveAs, &QAction::triggered);
        QTest::keyClick(m_window.get(), Qt::Key_S, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(triggered.count(), 1);
        QVERIFY2(!answer.file.isEmpty(), "the Save As dialog opened");
    }

    // 3. a shipped example opened from disk is an untitled copy; dialogs never start in "/" or
    //    in the examples folder, and the save prompt names the example
    void examplesOpenAsUntitledCopies() {
        const QString path = example("mass_spring_damper.endstop");
        QVERIFY(m_window->openFile(path));
        QVERIFY(doc().path().isEmpty());
        QVERIFY2(m_window->windowTitle().contains("mass_spring_damper (example)"), qPrintable(m_window->windowTitle()));
        QVERIFY(!m_window->recentFiles().contains(QFileInfo(path).absoluteFilePath()));
        FileDialogAnswer answer;
        QVERIFY(!m_window->saveAs());
        QVERIFY(!answer.directory.isEmpty());
        QVERIFY2(answer.directory != "/", qPrintable(answer.directory));
        QVERIFY2(!answer.directory.contains("resources/examples"), qPrintable(answer.directory));
        QVERIFY2(answer.file.endsWith("mass_spring_damper.endstop"), qPrintable(answer.file));

        scene()->selectBlocks({QString::fromStdString(doc().model().blocks().front().name)});
        scene()->rotateSelection(90);
        QString text;
        test::MessageBoxAnswer cancel(QMessageBox::Cancel, &text);
        m_window->newFile();
        QVERIFY2(text.contains("mass_spring_damper (example) has unsaved changes"), qPrintable(text));
    }

    void aChangedCopyOfAnExampleOpensAsItsFile() {
        QTemporaryDir dir;
        QFile in(example("mass_spring_damper.endstop"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QByteArray bytes = in.readAll();
        bytes.replace("\"stop_time\": 2.0", "\"stop_time\": 3.0");
        const QString path = dir.filePath("mass_spring_damper.endstop");
        QFile out(path);
        QVERIFY(out.open(QIODevice::WriteOnly) && out.write(bytes) == bytes.size());
        out.close();
        QVERIFY(m_window->openFile(path));
        QCOMPARE(doc().path(), QFileInfo(path).absoluteFilePath());
    }

    // a word in a mass field: the example is a mass, not "10 mm"
    void aNonNumberGetsAnExampleInTheFieldsUnit() {
        scene()->selectBlocks({"mass1"});
        QApplication::processEvents();
        gui::ParamForm* form = m_window->properties()->form();
        QLineEdit* mass = form->findChild<QLineEdit*>("mass");
        QVERIFY(mass);
        mass->setFocus();
        mass->selectAll();
        QTest::keyClicks(mass, "heavy");
        QTest::keyClick(mass, Qt::Key_Return);
        const auto* error = form->findChild<QLabel*>("mass_error");
        QVERIFY(error);
        QVERIFY2(error->text().contains("'heavy' is not a number (e.g. 10 kg)"), qPrintable(error->text()));
        QVERIFY(!error->text().contains("mm"));
    }

    // the Properties dock: a choice longer than its box is written out under it, wrapped
    void longChoicesAreWrittenOutInTheDock() {
        scene()->selectBlocks({"stop"});
        QApplication::processEvents();
        gui::ParamForm* form = m_window->properties()->form();
        auto* choice = form->findChild<QComboBox*>("model");
        auto* note = form->findChild<QLabel*>("model_note");
        QVERIFY(choice && note);
        QTRY_VERIFY(choice->width() > 0);
        const bool cut = choice->fontMetrics().horizontalAdvance(choice->currentText()) > choice->width() - 32;
        QCOMPARE(note->isVisibleTo(form), cut);
        QVERIFY(cut);   // the smooth model's name is longer than a 300 px dock
        QCOMPARE(note->text(), choice->currentText());
        QVERIFY(note->wordWrap());
        // a unit box shows its whole unit
        QComboBox* unit = form->unitBox("upper_bound");
        QVERIFY(unit);
        QTRY_VERIFY2(unit->width() >= unit->minimumSizeHint().width(),
                     qPrintable(QString("%1 < %2").arg(unit->width()).arg(unit->minimumSizeHint().width())));
    }

    // 9. the model summary counts blocks after delete, undo and redo
    void modelSummaryFollowsUndoRedoAndDelete() {
        scene()->clearSelection();
        QVERIFY2(summary().contains("5 blocks, 1 connections"), qPrintable(summary()));
        scene()->selectBlocks({"spring1"});
        m_window->action("delete")->trigger();
        QVERIFY2(summary().contains("4 blocks, 0 connections"), qPrintable(summary()));
        m_window->action("undo")->trigger();
        scene()->clearSelection();
        QVERIFY2(summary().contains("5 blocks, 1 connections"), qPrintable(summary()));
        m_window->action("redo")->trigger();
        QVERIFY2(summary().contains("4 blocks"), qPrintable(summary()));
        m_window->action("undo")->trigger();
        QVERIFY2(summary().contains("5 blocks"), qPrintable(summary()));
    }

    // 12. Library double-clicks and pastes do not stack blocks on top of each other
    void newAndPastedBlocksLandInFreeSpace() {
        QTreeWidgetItem* item = m_window->library()->itemFor("translational.damper");
        for (int i = 0; i < 3; ++i) Q_EMIT m_window->library()->tree()->itemActivated(item, 0);
        scene()->selectBlocks({"stop"});
        QTest::keyClick(view(), Qt::Key_C, Qt::ControlModifier);
        QTest::keyClick(view(), Qt::Key_V, Qt::ControlModifier);
        QTest::keyClick(view(), Qt::Key_V, Qt::ControlModifier);
        QCOMPARE(doc().model().blocks().size(), std::size_t(10));
        const auto items = scene()->blockItems();
        for (auto a = items.cbegin(); a != items.cend(); ++a)
            for (auto b = std::next(a); b != items.cend(); ++b)
                QVERIFY2(!a.value()->sceneBoundingRect().intersects(b.value()->sceneBoundingRect()),
                         qPrintable(a.key() + " overlaps " + b.key()));
        // still near where they were asked for: the visible centre, next to the copied block
        const QPointF centre = view()->visibleCenter();
        const core::model::BlockSpec* damper = doc().model().find("damper1");
        QVERIFY(QLineF(QPointF(damper->ui.x, damper->ui.y), centre).length() < 200);
        const core::model::BlockSpec* pasted = doc().model().find("stop2");
        QVERIFY(pasted && QLineF(QPointF(pasted->ui.x, pasted->ui.y), QPointF(160, 160)).length() < 200);
    }

    // 13. dragging a wire over a port of another domain shows the refusal before release
    void incompatiblePortRefusesWhileDragging() {
        const QPointF from = test::portTip(scene(), "spring1", "C");
        test::mouse(view(), QEvent::MouseButtonPress, from);
        test::mouse(view(), QEvent::MouseMove, from + QPointF(30, 30));
        QVERIFY(scene()->wirePreview());
        QVERIFY(!scene()->wireDragRefused());
        const QColor normal = scene()->wirePreview()->pen().color();

        const QPointF wheel = test::portTip(scene(), "wheel", "I");
        test::mouse(view(), QEvent::MouseMove, wheel);
        QVERIFY(scene()->wireDragRefused());
        QCOMPARE(scene()->blockItem("wheel")->hotPort(), std::string("I"));
        QVERIFY(scene()->blockItem("wheel")->hotPortRefused());
        QCOMPARE(scene()->wirePreview()->pen().color(), gui::kRefusedColour);
        QVERIFY2(scene()->lastStatus().contains("different domains"), qPrintable(scene()->lastStatus()));

        const QPointF ground = test::portTip(scene(), "ground", "R");
        test::mouse(view(), QEvent::MouseMove, ground);   // a port that takes it
        QVERIFY(!scene()->wireDragRefused());
        QVERIFY(scene()->blockItem("wheel")->hotPort().empty());
        QVERIFY(!scene()->blockItem("ground")->hotPortRefused());
        QCOMPARE(scene()->wirePreview()->pen().color(), normal);
        test::mouse(view(), QEvent::MouseButtonRelease, ground);
        const core::model::Connection c{{"spring1", "C"}, {"ground", "R"}};
        QVERIFY(std::find(doc().model().connections().begin(), doc().model().connections().end(), c) !=
                doc().model().connections().end());
    }
};

QTEST_MAIN(TestFirstHour)
#include "tst_first_hour.moc"
