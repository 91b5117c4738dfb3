// SPDX-License-Identifier: GPL-3.0-or-later
// Subsystems through the real widgets: Create Subsystem on a selection gives one instance wired as
// before and the same results; a double-click opens it (breadcrumbs), an edit inside reaches every
// instance and undoes; a crumb goes back; Expand Subsystem and Make Unique; the mask dialog; a
// diagnostic naming a path opens the level holding the block.
#include "blocks/registry.hpp"
#include "core/model/flatten.hpp"
#include "gui/breadcrumbs.hpp"
#include "gui/block_item.hpp"
#include "gui/diagnostics_panel.hpp"
#include "gui/diagram_scene.hpp"
#include "gui/diagram_view.hpp"
#include "gui/document.hpp"
#include "gui/main_window.hpp"
#include "gui/param_dialog.hpp"
#include "tests/gui/gui_test_support.hpp"
#include "support/compare.hpp"
#include "tests/support/test_support.hpp"

#include <QAction>
#include <QLineEdit>
#include <QThreadPool>
#include <QUndoStack>
#include <QtTest>

using namespace endstop;

namespace {

const char* kModel = R"({ "formatVersion": 2,
  "simulation": { "stop_time": 0.3, "output_interval": 0.001 },
  "parameters": [ { "name": "k0", "value": "4e3 N/m" } ],
  "blocks": [ { "name": "src", "type": "signal.sine", "parameters": { "amplitude": 20, "frequency": "4 Hz" }, "ui": { "pos": [-200, -100] } },
              { "name": "fs", "type": "translational.force_source", "ui": { "pos": [-100, 0] } },
              { "name": "m1", "type": "translational.mass", "parameters": { "mass": 1 }, "ui": { "pos": [0, -80] } },
              { "name": "k", "type": "translational.spring", "parameters": { "stiffness": "k0" }, "ui": { "pos": [100, 0] } },
              { "name": "m2", "type": "translational.mass", "parameters": { "mass": 0.5 }, "ui": { "pos": [200, -80] } },
              { "name": "d", "type": "translational.damper", "parameters": { "damping": 5 }, "ui": { "pos": [300, 0] } },
              { "name": "g", "type": "translational.reference", "ui": { "pos": [200, 120] } } ],
  "connections": [ ["src.y", "fs.S"], ["fs.R", "m1.M"], ["fs.C", "g.R"], ["m1.M", "k.R"],
                   ["k.C", "m2.M"], ["m2.M", "d.R"], ["d.C", "g.R"] ] })";

double stiffness(const core::model::Model& flat, const std::string& block) {
    return std::get<double>(flat.find(block)->params.at("stiffness"));
}

}   // namespace

class TestSubsystems : public QObject {
    Q_OBJECT
    QTemporaryDir m_settings;
    std::unique_ptr<gui::MainWindow> m_window;
    gui::DiagramScene* scene() const { return m_window->scene(); }
    gui::DiagramView* view() const { return m_window->view(); }
    gui::Document& doc() const { return m_window->document(); }
    gui::Breadcrumbs* crumbs() const { return m_window->findChild<gui::Breadcrumbs*>(); }
    core::model::Model flat() const { return core::model::flatten(doc().model(), blocks::registry()); }

    void group(const QStringList& names) {
        scene()->selectBlocks(names);
        m_window->action("createSubsystem")->trigger();
    }
    void doubleClick(const QString& block) {
        const QPointF at = scene()->blockItem(block)->scenePos();
        test::mouse(view(), QEvent::MouseButtonPress, at);
        test::mouse(view(), QEvent::MouseButtonRelease, at);
        test::mouse(view(), QEvent::MouseButtonDblClick, at);
        test::mouse(view(), QEvent::MouseButtonRelease, at);
    }

private Q_SLOTS:
    void initTestCase() { test::isolateSettings(m_settings); }

    void init() {
        m_window = test::shownWindow(QSize(1200, 800));
        QVERIFY(m_window);
        doc().reset(test::modelFromJson(kModel), QString());
        view()->setTransform(QTransform());
        view()->centerOn(50, 0);
        view()->setFocus();
    }

    void cleanup() {
        doc().markClean();
        m_window.reset();
        QThreadPool::globalInstance()->waitForDone();
    }

    void createSubsystemKeepsWiresAndResults() {
        const auto before = test::run(doc().model());
        const QByteArray original = test::bytes(doc());
        group({"k", "m2", "d"});
        QVERIFY(scene()->blockItem("subsystem1"));
        QVERIFY(!scene()->blockItem("k"));
        QCOMPARE(scene()->selectedBlockNames(), QStringList{"subsystem1"});
        QCOMPARE(doc().model().connectionsOf("subsystem1").size(), std::size_t(2));   // m1's node, the ground
        QCOMPARE(scene()->blockItem("subsystem1")->layout().ports.size(), std::size_t(2));
        const auto after = test::run(doc().model());
        for (double t : {0.1, 0.2, 0.3})
            QCOMPARE_NEAR(test::at(after, "subsystem1.m2.x", t), test::at(before, "m2.x", t), 1e-7);
        doc().undoStack()->undo();   // one step restores everything
        QCOMPARE(test::bytes(doc()), original);
        QVERIFY(scene()->blockItem("k"));
    }

    void doubleClickOpensAndEditsReachEveryInstance() {
        group({"k", "m2", "d"});
        core::model::BlockSpec second{"subsystem2", "subsystem:Subsystem1", 1, {}, {}};
        second.ui.x = 400;
        QVERIFY(!doc().apply(core::model::AddBlock{second}, "add"));
        doubleClick("subsystem1");
        QCOMPARE(scene()->levelPath(), QStringList{"subsystem1"});
        QCOMPARE(scene()->levelDefinition(), QString("Subsystem1"));
        QCOMPARE(crumbs()->texts(), (QStringList{"Model", "subsystem1 (Subsystem1)"}));
        QVERIFY(scene()->blockItem("k") && scene()->blockItem("P1") && !scene()->blockItem("m1"));
        // an edit inside (through the scene, as every gesture) changes both instances
        QVERIFY(!scene()->applyEdit(core::model::SetParameter{"k", "stiffness", 5000.0}, "edit"));
        QCOMPARE(stiffness(flat(), "subsystem1.k"), 5000.0);
        QCOMPARE(stiffness(flat(), "subsystem2.k"), 5000.0);
        // a gesture inside: delete the damper, the level follows
        scene()->selectBlocks({"d"});
        scene()->deleteSelection();
        QVERIFY(!scene()->blockItem("d"));
        QVERIFY(!doc().model().findSubsystem("Subsystem1")->body.find("d"));
        doc().undoStack()->undo();
        QVERIFY(scene()->blockItem("d"));
        doc().undoStack()->undo();
        QCOMPARE(stiffness(flat(), "subsystem2.k"), 4000.0);
        crumbs()->clickCrumb(0);
        QVERIFY(scene()->levelPath().isEmpty());
        QVERIFY(scene()->blockItem("subsystem2"));
        QCOMPARE(crumbs()->texts(), QStringList{"Model"});
    }

    void undoLeavesALevelThatIsGone() {
        group({"k", "m2", "d"});
        doubleClick("subsystem1");
        QCOMPARE(scene()->levelPath().size(), 1);
        doc().undoStack()->undo();   // the subsystem goes: the canvas returns to the model
        QVERIFY(scene()->levelPath().isEmpty());
        QVERIFY(scene()->blockItem("k"));
    }

    void expandRestores() {
        const auto before = test::run(doc().model());
        group({"fs", "m1", "k"});
        scene()->selectBlocks({"subsystem1"});
        m_window->action("expandSubsystem")->trigger();
        QVERIFY(!scene()->blockItem("subsystem1"));
        for (const char* b : {"fs", "m1", "k"}) QVERIFY(scene()->blockItem(b));
        QVERIFY(doc().model().subsystems().empty());
        const auto after = test::run(doc().model());
        QCOMPARE_NEAR(test::last(after, "m2.x"), test::last(before, "m2.x"), 1e-7);
    }

    void makeUniqueSeparatesOneInstance() {
        group({"k", "m2", "d"});
        QVERIFY(!doc().apply(
            core::model::AddBlock{core::model::BlockSpec{"subsystem2", "subsystem:Subsystem1", 1, {}, {}}}, "add"));
        scene()->selectBlocks({"subsystem2"});
        m_window->action("makeUnique")->trigger();
        QCOMPARE(QString::fromStdString(doc().model().find("subsystem2")->type), QString("subsystem:Subsystem2"));
        doubleClick("subsystem2");
        QCOMPARE(crumbs()->texts(), (QStringList{"Model", "subsystem2 (Subsystem2)"}));
        QVERIFY(!scene()->applyEdit(core::model::SetParameter{"k", "stiffness", 7000.0}, "edit"));
        QCOMPARE(stiffness(flat(), "subsystem2.k"), 7000.0);
        QCOMPARE(stiffness(flat(), "subsystem1.k"), 4000.0);
    }

    void maskDialogEditsTheInstance() {
        group({"k", "m2", "d"});
        QVERIFY(!doc().apply(core::model::InSubsystem{"Subsystem1", {core::model::SetModelParameter{"kk", "1e3 N/m"}}},
                             "mask"));
        QVERIFY(!doc().apply(
            core::model::InSubsystem{"Subsystem1", {core::model::SetParameter{"k", "stiffness", std::string("kk")}}},
            "use"));
        QCOMPARE(stiffness(flat(), "subsystem1.k"), 1000.0);
        {
            gui::ParamDialog dialog(*scene(), "subsystem1", m_window.get());
            QVERIFY(!dialog.form());
            QLineEdit* kk = dialog.maskEditor("kk");
            QVERIFY(kk);
            kk->setText("2*k0");
            QVERIFY(dialog.apply());
        }
        QCOMPARE(std::get<std::string>(doc().model().find("subsystem1")->params.at("kk")), std::string("2*k0"));
        QCOMPARE(stiffness(flat(), "subsystem1.k"), 8000.0);
        gui::ParamDialog again(*scene(), "subsystem1", m_window.get());
        QCOMPARE(again.maskEditor("kk")->text(), QString("2*k0"));
        again.maskEditor("kk")->setText("3000");
        QVERIFY(again.apply());
        QCOMPARE(std::get<double>(doc().model().find("subsystem1")->params.at("kk")), 3000.0);
        again.maskEditor("kk")->setText("2*");   // refused with the reason, nothing changes
        QVERIFY(!again.apply());
        QCOMPARE(std::get<double>(doc().model().find("subsystem1")->params.at("kk")), 3000.0);
    }

    void diagnosticOpensTheSubsystem() {
        group({"k", "m2", "d"});
        Q_EMIT m_window->diagnostics()->blockRequested("subsystem1.d");
        QCOMPARE(scene()->levelPath(), QStringList{"subsystem1"});
        QCOMPARE(scene()->selectedBlockNames(), QStringList{"d"});
        Q_EMIT m_window->diagnostics()->blockRequested("m1");   // back at the top
        QVERIFY(scene()->levelPath().isEmpty());
        QCOMPARE(scene()->selectedBlockNames(), QStringList{"m1"});
    }
};

QTEST_MAIN(TestSubsystems)
#include "tst_subsystems.moc"
