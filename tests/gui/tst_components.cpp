// SPDX-License-Identifier: GPL-3.0-or-later
// Component files through the widgets: Save Subsystem as Component on an instance writes the
// file into the library folder ("components" next to the project), the Library's Components
// category lists it, a double-click inserts a copy (the identical definition reused) as one undo
// step, a drop onto the canvas inserts one where it lands, and a project whose definition of the
// same name differs gets a renamed copy.
#include "blocks/registry.hpp"
#include "core/io/component_file.hpp"
#include "core/model/flatten.hpp"
#include "gui/block_library.hpp"
#include "gui/component_actions.hpp"
#include "gui/diagram_scene.hpp"
#include "gui/diagram_view.hpp"
#include "gui/document.hpp"
#include "gui/main_window.hpp"
#include "tests/gui/gui_test_support.hpp"
#include "tests/support/test_support.hpp"

#include <QAction>
#include <QTreeWidget>
#include <QUndoStack>
#include <QtTest>

using namespace endstop;

namespace {

const char* kModel = R"({ "formatVersion": 2,
  "subsystems": { "Stage": { "ports": [ { "name": "R", "domain": "translational" }, { "name": "C", "domain": "translational" } ],
      "parameters": [ { "name": "k", "value": "3e3 N/m" } ],
      "blocks": [ { "name": "spring", "type": "translational.spring", "parameters": { "stiffness": "k" } } ],
      "connections": [ ["R", "spring.R"], ["spring.C", "C"] ] } },
  "blocks": [ { "name": "m1", "type": "translational.mass", "ui": { "pos": [0, 0] } },
              { "name": "st1", "type": "subsystem:Stage", "ui": { "pos": [120, 0] } },
              { "name": "g", "type": "translational.reference", "ui": { "pos": [240, 80] } } ],
  "connections": [ ["m1.M", "st1.R"], ["st1.C", "g.R"] ] })";

}   // namespace

class TestComponents : public QObject {
    Q_OBJECT
    QTemporaryDir m_settings, m_dir;
    std::unique_ptr<gui::MainWindow> m_window;
    gui::Document& doc() const { return m_window->document(); }
    gui::BlockLibrary* library() const { return m_window->library(); }
    QString componentPath() const { return m_dir.filePath("components/Stage.endstopc"); }

    void doubleClick(QTreeWidgetItem* item) {
        QTreeWidget* tree = library()->tree();
        tree->scrollToItem(item);
        const QPoint at = tree->visualItemRect(item).center();
        QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, at);
        QTest::mouseDClick(tree->viewport(), Qt::LeftButton, {}, at);
    }

private Q_SLOTS:
    void initTestCase() { test::isolateSettings(m_settings); }

    void init() {
        m_window = test::shownWindow();
        QVERIFY(m_window);
        QDir(m_dir.path()).mkpath("components");
        doc().reset(test::modelFromJson(kModel), m_dir.filePath("project.endstop"));
    }
    void cleanup() { m_window.reset(); }

    void saveListInsertUndo() {
        QString suggested;
        m_window->components()->setSaveChooser([&](QWidget*, const QString& s) {
            suggested = s;
            return s;
        });
        QVERIFY(!m_window->action("saveComponent")->isEnabled());
        m_window->scene()->selectBlocks({"st1"});
        QVERIFY(m_window->action("saveComponent")->isEnabled());
        m_window->action("saveComponent")->trigger();
        QCOMPARE(suggested, componentPath());   // the library folder next to the project
        QVERIFY(QFile::exists(componentPath()));
        QCOMPARE(core::io::loadComponent(componentPath(), blocks::registry()).name, std::string("Stage"));

        QTreeWidgetItem* item = library()->componentItem(componentPath());
        QVERIFY(item);
        QCOMPARE(item->parent(), library()->componentsCategory());
        QCOMPARE(item->text(0), QString("Stage"));

        const QByteArray before = test::bytes(doc());
        const int steps = doc().undoStack()->count();
        doubleClick(item);
        QCOMPARE(doc().undoStack()->count(), steps + 1);
        const core::model::BlockSpec* inserted = doc().model().find("stage1");
        QVERIFY(inserted);
        QCOMPARE(inserted->type, std::string("subsystem:Stage"));   // the identical definition reused
        QCOMPARE(doc().model().subsystems().size(), std::size_t(1));
        QVERIFY(m_window->scene()->blockItem("stage1"));
        doc().undoStack()->undo();
        QCOMPARE(test::bytes(doc()), before);
        QVERIFY(!m_window->scene()->blockItem("stage1"));
    }

    void dropInsertsWhereItLands() {
        core::io::saveComponent(doc().model(), "Stage", componentPath(), blocks::registry());
        QMimeData* data = gui::BlockLibrary::componentMimeData(componentPath());
        gui::DiagramView* view = m_window->view();
        const QPointF scenePos(400, 300);
        const QPoint at = view->mapFromScene(scenePos);
        QDragEnterEvent enter(at, Qt::CopyAction, data, Qt::LeftButton, {});
        QApplication::sendEvent(view->viewport(), &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(at), Qt::CopyAction, data, Qt::LeftButton, {});
        QApplication::sendEvent(view->viewport(), &drop);
        delete data;
        const core::model::BlockSpec* inserted = doc().model().find("stage1");
        QVERIFY(inserted);
        QVERIFY(std::abs(inserted->ui.x - 400) <= 10 && std::abs(inserted->ui.y - 300) <= 10);
    }

    void differentDefinitionGetsARenamedCopy() {
        core::io::saveComponent(doc().model(), "Stage", componentPath(), blocks::registry());
        m_window->components()->refresh();
        // the project's Stage changes after the component was saved
        QVERIFY(!doc().apply(core::model::InSubsystem{"Stage", {core::model::SetParameter{"spring", "stiffness", 5e3}}},
                             "edit"));
        doubleClick(library()->componentItem(componentPath()));
        QCOMPARE(doc().model().find("stage1")->type, std::string("subsystem:Stage_2"));
        QVERIFY(!doc().apply(core::model::Connect{{{"m1", "M"}, {"stage1", "R"}}}, "wire"));
        QVERIFY(!doc().apply(core::model::Connect{{{"stage1", "C"}, {"g", "R"}}}, "wire"));
        const core::model::Model flat = core::model::flatten(doc().model(), blocks::registry());
        QCOMPARE(std::get<double>(flat.find("st1.spring")->params.at("stiffness")), 5e3);
        QCOMPARE(std::get<double>(flat.find("stage1.spring")->params.at("stiffness")), 3e3);
    }
};

QTEST_MAIN(TestComponents)
#include "tst_components.moc"
