// SPDX-License-Identifier: GPL-3.0-or-later
// Files in the main window: save -> open is byte-identical, a malformed file shows a message box
// and leaves the current document untouched, the dirty marker, confirmation before unsaved
// changes are lost, recent files, autosave and the recovery offer after a crash, examples.
#include "blocks/registry.hpp"
#include "gui/main_window.hpp"
#include "gui/recovery.hpp"
#include "gui_test_support.hpp"
#include "support/test_support.hpp"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QMenu>
#include <QTest>
#include <QThreadPool>
#include <QUndoStack>

using namespace endstop;

namespace {
using test::readBytes;
}   // namespace

class TestProjectFiles : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_settings;
    QTemporaryDir m_dir;
    std::unique_ptr<gui::MainWindow> m_window;
    gui::Document& doc() const { return m_window->document(); }
    // the user's own project: a copy of an example in a folder of theirs (a file in the shipped
    // examples folder opens as an untitled copy, see tst_first_hour)
    QString example() const {
        const QString copy = m_dir.filePath("mass_spring_damper.endstop");
        if (!QFile::exists(copy)) QFile::copy(test::sourcePath("resources/examples/mass_spring_damper.endstop"), copy);
        return copy;
    }
    QString tmp(const QString& name) const { return m_dir.filePath(name); }

private Q_SLOTS:
    void initTestCase() {
        test::isolateSettings(m_settings);
        QDir(gui::Recovery::directory()).removeRecursively();
    }
    void init() { m_window = std::make_unique<gui::MainWindow>(blocks::registry()); }
    void cleanup() {
        doc().markClean();
        m_window.reset();
        QThreadPool::globalInstance()->waitForDone();
    }

    void saveOpenRoundTripIsByteIdentical() {
        QVERIFY(m_window->openFile(example()));
        QVERIFY(!doc().apply(core::model::MoveBlock{"mass1", 330, 10}, "move"));
        QVERIFY(!doc().apply(core::model::SetParameter{"spring1", "stiffness", 1234.5678901234567}, "k"));
        QVERIFY(m_window->saveTo(tmp("a.endstop")));
        QVERIFY(!m_window->isWindowModified());
        QVERIFY(m_window->openFile(tmp("a.endstop")));
        QVERIFY(m_window->saveTo(tmp("b.endstop")));
        const QByteArray a = readBytes(tmp("a.endstop"));
        QVERIFY(!a.isEmpty());
        QCOMPARE(readBytes(tmp("b.endstop")), a);
        QCOMPARE(test::bytes(doc()), a);
        QCOMPARE(m_window->recentFiles().front(), QFileInfo(tmp("b.endstop")).absoluteFilePath());
        QVERIFY(m_window->recentFiles().contains(QFileInfo(tmp("a.endstop")).absoluteFilePath()));
    }

    void malformedFileShowsAnErrorAndKeepsTheDocument() {
        QVERIFY(m_window->openFile(example()));
        QVERIFY(!doc().apply(core::model::MoveBlock{"mass1", 0, 0}, "move"));
        const QByteArray before = test::bytes(doc());
        const QString path = doc().path();
        test::writeBytes(tmp("bad.endstop"),
                         "{ \"format\": \"endstop-project\", \"formatVersion\": 1, \"blocks\": [ { \"name\": ");
        QString text;
        test::MessageBoxAnswer answer(QMessageBox::Ok, &text);
        QVERIFY(!m_window->openFile(tmp("bad.endstop")));
        QCOMPARE(answer.answered(), 1);
        QVERIFY2(text.contains("bad.endstop") && text.contains("malformed JSON"), qPrintable(text));
        QCOMPARE(test::bytes(doc()), before);
        QCOMPARE(doc().path(), path);
        QCOMPARE(doc().undoStack()->count(), 1);
        QVERIFY(doc().isDirty());

        test::writeBytes(tmp("unknown.endstop"), R"({"format": "endstop-project", "formatVersion": 1,
            "blocks": [{"name": "x", "type": "translational.warp_drive"}]})");
        test::MessageBoxAnswer again(QMessageBox::Ok, &text);
        QVERIFY(!m_window->openFile(tmp("unknown.endstop")));
        QVERIFY2(text.contains("blocks[0].type") && text.contains("warp_drive"), qPrintable(text));
        QCOMPARE(test::bytes(doc()), before);
    }

    void dirtyMarkerAndConfirmation() {
        QVERIFY(m_window->openFile(example()));
        QVERIFY(!m_window->isWindowModified());
        QVERIFY(m_window->windowTitle().startsWith("mass_spring_damper.endstop"));
        QVERIFY(!doc().apply(core::model::MoveBlock{"mass1", 10, 10}, "move"));
        QVERIFY(m_window->isWindowModified());
        {   // New with unsaved changes asks; Cancel keeps everything
            test::MessageBoxAnswer answer(QMessageBox::Cancel, nullptr);
            m_window->newFile();
            QCOMPARE(answer.answered(), 1);
            QCOMPARE(doc().model().blocks().size(), std::size_t(6));
        }
        {   // closing asks too; Cancel keeps the window
            test::MessageBoxAnswer answer(QMessageBox::Cancel, nullptr);
            m_window->show();
            QVERIFY(!m_window->close());
            QCOMPARE(answer.answered(), 1);
        }
        doc().undoStack()->undo();   // back to the saved state: clean again
        QVERIFY(!m_window->isWindowModified());
        {
            test::MessageBoxAnswer answer(QMessageBox::Discard, nullptr);
            QVERIFY(!doc().apply(core::model::MoveBlock{"mass1", 10, 10}, "move"));
            m_window->newFile();
            QCOMPARE(answer.answered(), 1);
            QVERIFY(doc().model().blocks().empty());
            QVERIFY(doc().path().isEmpty());
        }
    }

    void autosaveAndRecoveryAfterACrash() {
        QVERIFY(m_window->openFile(example()));
        QVERIFY(!m_window->recovery()->autosave());   // nothing unsaved
        QVERIFY(!doc().apply(core::model::RenameBlock{"mass1", "slider"}, "rename"));
        QVERIFY(m_window->recovery()->autosave());
        const QString recoveryFile = m_window->recovery()->path();
        QCOMPARE(readBytes(recoveryFile), test::bytes(doc()));
        QVERIFY(gui::Recovery::orphans().isEmpty());   // its window is still alive

        // a crash: the file stays, the lock goes (simulated by copying it to a session nobody holds)
        const QString orphan = gui::Recovery::directory() + "/session-crashed0000.endstop";
        QVERIFY(QFile::copy(recoveryFile, orphan));
        QVERIFY(QFile::copy(recoveryFile + ".json", orphan + ".json"));
        QCOMPARE(gui::Recovery::orphans().size(), 1);

        auto fresh = std::make_unique<gui::MainWindow>(blocks::registry());
        QString text;
        {
            test::MessageBoxAnswer answer(QMessageBox::Yes, &text);
            fresh->offerRecovery();
            QCOMPARE(answer.answered(), 1);
        }
        QVERIFY2(text.contains("mass_spring_damper.endstop"), qPrintable(text));
        QVERIFY(fresh->document().model().find("slider"));
        QVERIFY(fresh->document().isDirty());
        QVERIFY(fresh->isWindowModified());
        QCOMPARE(fresh->document().path(), QFileInfo(example()).absoluteFilePath());
        QVERIFY(!QFile::exists(orphan));   // adopted by the new session
        fresh->document().markClean();
        fresh.reset();

        // a clean close removes the recovery file
        doc().markClean();
        m_window->close();
        QVERIFY(!QFile::exists(recoveryFile));
    }

    void examplesOpenFromTheHelpMenu() {
        QMenu* examples = nullptr;
        for (QMenu* m : m_window->findChildren<QMenu*>())
            if (m->title().contains("Examples")) examples = m;
        QVERIFY(examples);
        QVERIFY(!examples->actions().isEmpty());
        examples->actions().front()->trigger();
        QVERIFY(!doc().model().blocks().empty());
        QVERIFY(doc().path().isEmpty());   // a copy: Save asks where
        QVERIFY(m_window->windowTitle().contains("(example)"));
    }

    void layoutIsRestored() {
        m_window->resize(900, 650);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        m_window->close();
        gui::MainWindow next(blocks::registry());
        QCOMPARE(next.size(), QSize(900, 650));
    }
};

QTEST_MAIN(TestProjectFiles)
#include "tst_project_files.moc"
