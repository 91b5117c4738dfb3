// SPDX-License-Identifier: GPL-3.0-or-later
// Component files (docs/file-format.md, "Component files"): a definition and every definition it
// uses round-trip with identical bytes; a definition that needs a model parameter is refused;
// inserting reuses an identical definition and renames a different one of the same name (the
// instance and nested references follow), both instances simulate as their definitions say; one
// undo step; bad files name the file, the JSON path and what was expected.
#include "support/test_support.hpp"

#include "core/io/component_file.hpp"
#include "core/io/project_file.hpp"
#include "core/errors.hpp"
#include "core/model/flatten.hpp"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace endstop;
namespace io = core::io;

namespace {

// Stage holds an instance of Inner; Bad needs the model parameter k0.
std::string project(const char* innerK, const char* damping) {
    return std::string(R"({ "formatVersion": 2, "simulation": { "stop_time": 0.2, "output_interval": 0.001 },
  "parameters": [ { "name": "k0", "value": "1e3 N/m" } ],
  "subsystems": {
    "Inner": { "ports": [ { "name": "A", "domain": "translational" }, { "name": "B", "domain": "translational" } ],
               "parameters": [ { "name": "k", "value": ")") +
           innerK + R"(" } ],
               "blocks": [ { "name": "spring", "type": "translational.spring", "parameters": { "stiffness": "k" } } ],
               "connections": [ ["A", "spring.R"], ["spring.C", "B"] ] },
    "Stage": { "ports": [ { "name": "R", "domain": "translational" }, { "name": "C", "domain": "translational" } ],
               "parameters": [ { "name": "ks", "value": "3e3 N/m" } ],
               "blocks": [ { "name": "in1", "type": "subsystem:Inner", "parameters": { "k": "2*ks" } },
                           { "name": "d", "type": "translational.damper", "parameters": { "damping": )" +
           damping + R"( } } ],
               "connections": [ ["R", "in1.A"], ["in1.B", "C"], ["R", "d.R"], ["d.C", "C"] ] },
    "Bad": { "ports": [ { "name": "A", "domain": "translational" }, { "name": "B", "domain": "translational" } ],
             "blocks": [ { "name": "spring", "type": "translational.spring", "parameters": { "stiffness": "k0" } } ],
             "connections": [ ["A", "spring.R"], ["spring.C", "B"] ] } },
  "blocks": [ { "name": "src", "type": "signal.sine", "parameters": { "amplitude": 20, "frequency": "4 Hz" } },
              { "name": "fs", "type": "translational.force_source" },
              { "name": "m1", "type": "translational.mass", "parameters": { "mass": 1 } },
              { "name": "st1", "type": "subsystem:Stage" },
              { "name": "g", "type": "translational.reference" } ],
  "connections": [ ["src.y", "fs.S"], ["fs.R", "m1.M"], ["fs.C", "g.R"], ["m1.M", "st1.R"], ["st1.C", "g.R"] ] })";
}

QByteArray stageComponent() { return io::serializeComponent(test::modelFromJson(project("2e3 N/m", "4")), "Stage"); }

double param(const core::model::Model& flat, const std::string& block, const std::string& key) {
    return std::get<double>(flat.find(block)->params.at(key));
}

QString errorOf(const QByteArray& bytes) {
    try {
        (void)io::parseComponent(bytes, "lib/Stage.endstopc", blocks::registry());
    } catch (const core::FileFormatError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

}   // namespace

class TestComponentFile : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void roundTripIsIdentical() {
        const core::model::Model p = test::modelFromJson(project("2e3 N/m", "4"));
        const QByteArray bytes = stageComponent();
        QVERIFY(bytes.contains("\"format\": \"endstop-component\""));
        QVERIFY(!bytes.contains("\"Bad\""));   // only what Stage uses
        const io::Component c = io::parseComponent(bytes, "Stage.endstopc", blocks::registry());
        QCOMPARE(c.name, std::string("Stage"));
        QCOMPARE(c.definitions.size(), std::size_t(2));
        QCOMPARE(c.definitions[0].name, std::string("Inner"));   // leaves first
        QCOMPARE(c.definitions[1].name, std::string("Stage"));
        core::model::Model back;
        for (const core::model::SubsystemDef& d : c.definitions) back.apply(core::model::addSubsystem(d));
        QCOMPARE(io::serializeComponent(back, "Stage"), bytes);
        QTemporaryDir dir;
        const QString a = dir.filePath("a.endstopc"), b = dir.filePath("b.endstopc");
        io::saveComponent(p, "Stage", a, blocks::registry());
        core::model::Model fromFile;   // what the saved file holds, saved again
        for (const core::model::SubsystemDef& d : io::loadComponent(a, blocks::registry()).definitions)
            fromFile.apply(core::model::addSubsystem(d));
        io::saveComponent(fromFile, "Stage", b, blocks::registry());
        QCOMPARE(test::readBytes(a), test::readBytes(b));
        QCOMPARE(test::readBytes(a), bytes);
    }

    void needsOnlyItsMask() {
        const core::model::Model p = test::modelFromJson(project("2e3 N/m", "4"));
        QTemporaryDir dir;
        const QString path = dir.filePath("Bad.endstopc");
        try {
            io::saveComponent(p, "Bad", path, blocks::registry());
            QFAIL("a definition using a model parameter was saved");
        } catch (const core::ModelError& e) {
            const QString m = QString::fromUtf8(e.what());
            QVERIFY2(m.contains("k0") && m.contains("mask") && m.contains("Bad"), qPrintable(m));
        }
        QVERIFY(!QFile::exists(path));
    }

    void identicalDefinitionIsReused() {
        const core::model::Model original = test::modelFromJson(project("2e3 N/m", "4"));
        core::model::Model p = original;
        const io::Component c = io::parseComponent(stageComponent(), "Stage.endstopc", blocks::registry());
        const core::model::EditBatch batch = io::insertComponent(p, c, "st2", 100, 50);
        QCOMPARE(batch.edits.size(), std::size_t(1));   // the instance only
        const core::model::Edit undo = p.apply(batch);
        QCOMPARE(p.subsystems().size(), std::size_t(3));
        QCOMPARE(p.find("st2")->type, std::string("subsystem:Stage"));
        QCOMPARE(p.find("st2")->ui.x, 100.0);
        p.apply(undo);
        QCOMPARE(io::serializeProject(p), io::serializeProject(original));
    }

    void differentDefinitionIsRenamed() {
        const core::model::Model original = test::modelFromJson(project("5e3 N/m", "9"));
        core::model::Model p = original;
        const io::Component c = io::parseComponent(stageComponent(), "Stage.endstopc", blocks::registry());
        const core::model::Edit undo = p.apply(io::insertComponent(p, c, "ins", 0, 100));
        QVERIFY(p.findSubsystem("Inner_2") && p.findSubsystem("Stage_2"));
        QCOMPARE(p.find("ins")->type, std::string("subsystem:Stage_2"));
        QCOMPARE(p.findSubsystem("Stage_2")->body.find("in1")->type, std::string("subsystem:Inner_2"));
        QCOMPARE(p.findSubsystem("Stage")->body.find("in1")->type, std::string("subsystem:Inner"));
        core::model::Model inserted = p;
        p.apply(core::model::Connect{{{"m1", "M"}, {"ins", "R"}}});
        p.apply(core::model::Connect{{{"ins", "C"}, {"g", "R"}}});
        const core::model::Model flat = core::model::flatten(p, blocks::registry());
        QCOMPARE(param(flat, "ins.in1.spring", "stiffness"), 6e3);   // 2*ks of the component
        QCOMPARE(param(flat, "ins.d", "damping"), 4.0);
        QCOMPARE(param(flat, "st1.in1.spring", "stiffness"), 6e3);   // the project's Stage sets k = 2*ks too
        QCOMPARE(param(flat, "st1.d", "damping"), 9.0);
        const core::MemorySink r = test::run(p);
        QVERIFY(std::isfinite(test::last(r, "m1.x")));
        // a second insert reuses the renamed copies
        const core::model::EditBatch again = io::insertComponent(p, c, "ins2", 0, 200);
        QCOMPARE(again.edits.size(), std::size_t(1));
        // the batch's inverse restores the project
        inserted.apply(undo);
        QCOMPARE(io::serializeProject(inserted), io::serializeProject(original));
    }

    void badFilesNameFileAndPath_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expected");
        QByteArray good = stageComponent();
        QTest::newRow("project, not component") << QByteArray(good).replace("endstop-component", "endstop-project")
                                                << "lib/Stage.endstopc: format: expected \"endstop-component\"";
        QTest::newRow("no component") << QByteArray(good).replace("\"component\": \"Stage\",", "")
                                      << "lib/Stage.endstopc: component: expected the name";
        QTest::newRow("component not held")
            << QByteArray(good).replace("\"component\": \"Stage\"", "\"component\": \"Other\"")
            << "lib/Stage.endstopc: subsystems.Other: missing";
        QTest::newRow("malformed") << good.left(good.size() / 2) << "lib/Stage.endstopc:";
        QTest::newRow("unknown block type")
            << QByteArray(good).replace("translational.damper", "translational.dampr")
            << "lib/Stage.endstopc: subsystems.Stage.blocks[1].type: unknown block type";
        QTest::newRow("newer") << QByteArray(good).replace("\"formatVersion\": 2", "\"formatVersion\": 9")
                               << "lib/Stage.endstopc: formatVersion: version 9 is newer";
        QTest::newRow("unknown key") << QByteArray(good).replace("\"generator\"", "\"parameters\": [], \"generator\"")
                                     << "lib/Stage.endstopc: parameters: unknown key";
    }
    void badFilesNameFileAndPath() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        const QString error = errorOf(bytes);
        QVERIFY2(error.startsWith(expected), qPrintable(error));
    }

    void missingFile() {
        try {
            (void)io::loadComponent("/nonexistent/Stage.endstopc", blocks::registry());
            QFAIL("no error");
        } catch (const core::FileFormatError& e) {
            QVERIFY(QString::fromUtf8(e.what()).startsWith("/nonexistent/Stage.endstopc: no such file"));
        }
    }
};

QTEST_GUILESS_MAIN(TestComponentFile)
#include "tst_component_file.moc"
