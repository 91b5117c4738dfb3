// SPDX-License-Identifier: GPL-3.0-or-later
// The model as a document of edits: every edit's inverse restores the model exactly (the same
// blocks, connections in the same order and orientation, settings and plots, so the saved file is
// byte-identical after undo), redo restores the edited state, batches are all or nothing, renames
// carry connections and plots along, bad edits are refused and change nothing.
#include "core/io/project_file.hpp"
#include "core/errors.hpp"
#include "core/model/model.hpp"

#include <QTest>

#include <functional>

using namespace endstop::core;
using namespace endstop::core::model;

namespace {

Model baseModel() {
    Model m;
    BlockSpec mass{"m", "translational.mass", 1, {{"mass", 2.0}}, {}};
    mass.ui.x = 10;
    m.apply(AddBlock{mass});
    m.apply(AddBlock{BlockSpec{"k", "translational.spring", 1, {{"stiffness", 800.0}}, {}}});
    m.apply(AddBlock{BlockSpec{"d", "translational.damper", 1, {}, {}}});
    m.apply(AddBlock{BlockSpec{"g", "translational.reference", 1, {}, {}}});
    m.apply(AddBlock{BlockSpec{"mx", "signal.constant", 1, {}, {}}});
    for (auto [a, b] : {std::pair{"m.M", "k.R"}, {"k.C", "g.R"}, {"m.M", "d.R"}, {"d.C", "g.R"}})
        m.apply(Connect{Connection{*PortRef::parse(a), *PortRef::parse(b)}});
    m.apply(SetPlots{{{"motion", {"m.x", "m.v", "mx.y"}}, {"forces", {"k.f", "d.f"}}}});
    return m;
}

Connection wire(const char* a, const char* b) { return Connection{*PortRef::parse(a), *PortRef::parse(b)}; }

// Exact equality: connection order and orientation included (Connection::operator== ignores
// orientation on purpose, a saved file does not).
QString difference(const Model& a, const Model& b) {
    if (a.blocks() != b.blocks()) return "blocks differ";
    if (a.connections().size() != b.connections().size()) return "connection counts differ";
    for (std::size_t i = 0; i < a.connections().size(); ++i) {
        const Connection &x = a.connections()[i], &y = b.connections()[i];
        if (!(x.a == y.a && x.b == y.b))
            return QString("connection %1: %2-%3 vs %4-%5")
                .arg(i)
                .arg(QString::fromStdString(x.a.toString()), QString::fromStdString(x.b.toString()),
                     QString::fromStdString(y.a.toString()), QString::fromStdString(y.b.toString()));
    }
    if (!(a.simulation() == b.simulation())) return "simulation settings differ";
    if (a.plots() != b.plots()) return "plots differ";
    if (io::serializeProject(a) != io::serializeProject(b)) return "serialized files differ";
    return {};
}

struct NamedEdit {
    const char* name;
    std::function<Edit()> make;
};

const std::vector<NamedEdit>& edits() {
    static const std::vector<NamedEdit> list = {
        {"AddBlock appended",
         [] {
             return Edit(AddBlock{BlockSpec{"k2", "translational.spring", 1, {}, {}}});
         }},
        {"AddBlock at index",
         [] {
             return Edit(AddBlock{BlockSpec{"k2", "translational.spring", 1, {}, {}}, 1});
         }},
        {"RemoveBlock with connections", [] { return Edit(RemoveBlock{"m"}); }},
        {"RemoveBlock in the middle", [] { return Edit(RemoveBlock{"d"}); }},
        {"RemoveBlock shared node", [] { return Edit(RemoveBlock{"g"}); }},
        {"RemoveBlock unconnected", [] { return Edit(RemoveBlock{"mx"}); }},
        {"Connect", [] { return Edit(Connect{wire("m.M", "g.R")}); }},
        {"Disconnect first", [] { return Edit(Disconnect{wire("m.M", "k.R")}); }},
        {"Disconnect middle", [] { return Edit(Disconnect{wire("k.C", "g.R")}); }},
        {"Disconnect reversed", [] { return Edit(Disconnect{wire("g.R", "k.C")}); }},
        {"SetParameter new key",
         [] {
             return Edit(SetParameter{"m", "initial_velocity", ParamValue{1.5}});
         }},
        {"SetParameter change",
         [] {
             return Edit(SetParameter{"k", "stiffness", ParamValue{1e5}});
         }},
        {"SetParameter vector",
         [] {
             return Edit(SetParameter{"mx", "value", ParamValue{std::vector<double>{1, 2}}});
         }},
        {"SetParameter default",
         [] {
             return Edit(SetParameter{"m", "mass", std::nullopt});
         }},
        {"RenameBlock",
         [] {
             return Edit(RenameBlock{"m", "mass1"});
         }},
        {"RenameBlock prefix of another",
         [] {
             return Edit(RenameBlock{"mx", "c"});
         }},
        {"MoveBlock",
         [] {
             return Edit(MoveBlock{"k", 160, -40});
         }},
        {"SetBlockUi",
         [] {
             BlockUi ui;
             ui.x = 5;
             ui.rotation = 90;
             ui.flipped = true;
             ui.displayUnits = {{"mass", "g"}};
             return Edit(SetBlockUi{"m", ui});
         }},
        {"SetSimulation",
         [] {
             SimulationSettings s;
             s.stopTime = 3;
             s.linearSolver = LinearSolver::Klu;
             s.outputInterval = 1e-3;
             return Edit(SetSimulation{s});
         }},
        {"SetPlots",
         [] {
             return Edit(SetPlots{{{"only", {"k.x"}}}});
         }},
        {"EditBatch",
         [] {
             return Edit(EditBatch{{RemoveBlock{"m"}, AddBlock{BlockSpec{"m", "translational.mass", 1, {}, {}}},
                                    Connect{wire("m.M", "k.R")}, RenameBlock{"k", "spring"}, MoveBlock{"spring", 1, 2}},
                                   "replace mass"});
         }},
        {"nested EditBatch",
         [] {
             return Edit(EditBatch{{EditBatch{{Disconnect{wire("m.M", "d.R")}, RemoveBlock{"d"}}, "inner"},
                                    SetParameter{"k", "stiffness", ParamValue{1.0}}},
                                   "outer"});
         }},
    };
    return list;
}

// The ModelError message of applying `e`, or "" if it applied; checks nothing changed on error.
QString refusal(Model& m, const Edit& e) {
    const Model before = m;
    try {
        m.apply(e);
    } catch (const ModelError& err) {
        const QString diff = difference(before, m);
        if (!diff.isEmpty()) return "CHANGED ON ERROR: " + diff;
        return QString::fromStdString(err.what());
    }
    return {};
}

}   // namespace

class TestModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void inverseRestoresExactly_data() {
        QTest::addColumn<int>("index");
        for (std::size_t i = 0; i < edits().size(); ++i) QTest::newRow(edits()[i].name) << static_cast<int>(i);
    }
    void inverseRestoresExactly() {
        QFETCH(int, index);
        const Model original = baseModel();
        Model m = original;
        const Edit inverse = m.apply(edits()[static_cast<std::size_t>(index)].make());
        const Model edited = m;
        QVERIFY2(!difference(original, edited).isEmpty(), "the edit changed nothing");
        const Edit redo = m.apply(inverse);   // undo
        const QString undone = difference(original, m);
        QVERIFY2(undone.isEmpty(), qPrintable("undo: " + undone));
        m.apply(redo);   // redo
        const QString redone = difference(edited, m);
        QVERIFY2(redone.isEmpty(), qPrintable("redo: " + redone));
    }

    // undo of a whole history, newest first, gives back the start
    void undoHistory() {
        const Model original = baseModel();
        Model m = original;
        std::vector<Edit> undo;
        for (const NamedEdit& e : edits()) {
            try {
                undo.push_back(m.apply(e.make()));
            } catch (const ModelError&) {
                // later edits may not fit the model the earlier ones left; skipping them is fine
            }
        }
        QVERIFY(undo.size() >= 8);
        for (auto it = undo.rbegin(); it != undo.rend(); ++it) m.apply(*it);
        const QString diff = difference(original, m);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    void batchIsAllOrNothing_data() {
        QTest::addColumn<int>("failingAt");
        QTest::newRow("first") << 0;
        QTest::newRow("middle") << 3;
        QTest::newRow("last") << 6;
    }
    void batchIsAllOrNothing() {
        QFETCH(int, failingAt);
        std::vector<Edit> list = {RemoveBlock{"m"},           SetParameter{"k", "stiffness", ParamValue{5.0}},
                                  RenameBlock{"g", "ground"}, Connect{wire("d.C", "k.R")},
                                  MoveBlock{"d", 3, 4},       SetPlots{{}}};
        list.insert(list.begin() + failingAt,
                    AddBlock{BlockSpec{"k", "translational.spring", 1, {}, {}}});   // duplicate
        Model m = baseModel();
        const QString message = refusal(m, EditBatch{list, "batch"});
        QVERIFY2(message.contains("'k' already exists"), qPrintable(message));
    }

    void renameCarriesConnectionsAndPlots() {
        Model m = baseModel();
        m.apply(RenameBlock{"m", "mass1"});
        QVERIFY(!m.find("m"));
        QVERIFY(m.find("mass1"));
        QCOMPARE(m.indexOf("mass1"), 0);   // keeps its place
        QCOMPARE(m.connectionsOf("mass1").size(), std::size_t(2));
        QVERIFY(m.connectionsOf("m").empty());
        QCOMPARE(QString::fromStdString(m.connections()[0].a.toString()), QString("mass1.M"));
        QCOMPARE(QString::fromStdString(m.connections()[2].a.toString()), QString("mass1.M"));
        const std::vector<std::string> expected = {"mass1.x", "mass1.v", "mx.y"};   // "mx.y" is not m's
        QVERIFY(m.plots()[0].signals == expected);
        // renaming to itself is a no-op whose inverse is a no-op
        const Model before = m;
        m.apply(m.apply(RenameBlock{"k", "k"}));
        QVERIFY(difference(before, m).isEmpty());
    }

    void refusedEdits_data() {
        QTest::addColumn<int>("which");
        QTest::addColumn<QString>("expected");
        QTest::newRow("add duplicate name") << 0 << "a block named 'k' already exists";
        QTest::newRow("add invalid name") << 1 << "invalid block name '2k'";
        QTest::newRow("add empty name") << 2 << "invalid block name ''";
        QTest::newRow("rename to existing") << 3 << "a block named 'g' already exists";
        QTest::newRow("rename to invalid") << 4 << "invalid block name 'a.b'";
        QTest::newRow("rename unknown") << 5 << "no block named 'nope'";
        QTest::newRow("remove unknown") << 6 << "no block named 'nope'";
        QTest::newRow("connect unknown block") << 7 << "no block named 'nope'";
        QTest::newRow("connect to itself") << 8 << "cannot connect m.M to itself";
        QTest::newRow("connect twice") << 9 << "already connected";
        QTest::newRow("connect twice reversed") << 10 << "already connected";
        QTest::newRow("disconnect missing") << 11 << "are not connected";
        QTest::newRow("parameter of unknown block") << 12 << "no block named 'nope'";
        QTest::newRow("move unknown block") << 13 << "no block named 'nope'";
        QTest::newRow("ui of unknown block") << 14 << "no block named 'nope'";
        QTest::newRow("rename with a space") << 15 << "invalid block name 'a b'";
    }
    void refusedEdits() {
        QFETCH(int, which);
        QFETCH(QString, expected);
        const std::vector<Edit> bad = {
            AddBlock{BlockSpec{"k", "translational.spring", 1, {}, {}}},
            AddBlock{BlockSpec{"2k", "translational.spring", 1, {}, {}}},
            AddBlock{BlockSpec{"", "translational.spring", 1, {}, {}}},
            RenameBlock{"k", "g"},
            RenameBlock{"k", "a.b"},
            RenameBlock{"nope", "fine"},
            RemoveBlock{"nope"},
            Connect{wire("nope.R", "k.R")},
            Connect{wire("m.M", "m.M")},
            Connect{wire("m.M", "k.R")},
            Connect{wire("k.R", "m.M")},
            Disconnect{wire("m.M", "g.R")},
            SetParameter{"nope", "mass", ParamValue{1.0}},
            MoveBlock{"nope", 1, 1},
            SetBlockUi{"nope", {}},
            RenameBlock{"k", "a b"},
        };
        Model m = baseModel();
        const QString message = refusal(m, bad[static_cast<std::size_t>(which)]);
        QVERIFY2(message.contains(expected), qPrintable(message));
    }

    // an added block given as a temporary is moved in (Model::apply(Edit&&)): the same checks,
    // the same model, the same inverse
    void addBlockMovedIn() {
        Model moved = baseModel(), copied = baseModel();
        const BlockSpec spring{"k2", "translational.spring", 1, {{"spring_rate", ParamValue{5.0}}}, {}};
        const Edit inverse = moved.apply(Edit{AddBlock{spring}});
        const Edit copy{AddBlock{spring}};
        const Edit copiedInverse = copied.apply(copy);
        QCOMPARE(std::get<RemoveBlock>(inverse.value).name, std::string("k2"));
        QCOMPARE(std::get<RemoveBlock>(copiedInverse.value).name, std::string("k2"));
        QVERIFY(difference(moved, copied).isEmpty());
        QVERIFY(moved.find("k2") && moved.find("k2")->params == spring.params);
        const auto refusedMoved = [&](BlockSpec b) {
            const Model before = moved;
            try {
                moved.apply(Edit{AddBlock{std::move(b)}});
            } catch (const ModelError& e) {
                return difference(before, moved).isEmpty() ? QString(e.what()) : QString("CHANGED ON ERROR");
            }
            return QString();
        };
        QVERIFY(refusedMoved(spring).contains("a block named 'k2' already exists"));
        QVERIFY(refusedMoved(BlockSpec{"2k", "translational.spring", 1, {}, {}}).contains("invalid block name '2k'"));
        moved.apply(Edit{AddBlock{BlockSpec{"first", "translational.mass", 1, {}, {}}, 0}});
        QCOMPARE(moved.indexOf("first"), 0);
        QCOMPARE(moved.indexOf("k2"), static_cast<int>(moved.blocks().size()) - 1);
    }

    void removeRestoresConnectionsOnUndo() {
        Model m = baseModel();
        const Edit undo = m.apply(RemoveBlock{"g"});
        QVERIFY(!m.find("g"));
        QCOMPARE(m.connections().size(), std::size_t(2));   // k.C-g.R and d.C-g.R went with it
        m.apply(undo);
        QCOMPARE(m.indexOf("g"), 3);
        QCOMPARE(m.connectionsOf("g").size(), std::size_t(2));
        QVERIFY(difference(baseModel(), m).isEmpty());
    }

    void validNames_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("valid");
        QTest::newRow("letters") << "mass" << true;
        QTest::newRow("digits after") << "mass12" << true;
        QTest::newRow("underscore first") << "_x" << true;
        QTest::newRow("mixed") << "Stop_1a" << true;
        QTest::newRow("empty") << "" << false;
        QTest::newRow("digit first") << "1mass" << false;
        QTest::newRow("dot") << "a.b" << false;
        QTest::newRow("dash") << "a-b" << false;
        QTest::newRow("space") << "a b" << false;
        QTest::newRow("non-ascii") << "maß" << false;
    }
    void validNames() {
        QFETCH(QString, name);
        QFETCH(bool, valid);
        QCOMPARE(Model::validName(name.toStdString()), valid);
    }

    void uniqueName() {
        Model m = baseModel();
        QCOMPARE(QString::fromStdString(m.uniqueName("spring")), QString("spring"));   // free: as is
        QCOMPARE(QString::fromStdString(m.uniqueName("k")), QString("k1"));
        m.apply(AddBlock{BlockSpec{"k1", "translational.spring", 1, {}, {}}});
        QCOMPARE(QString::fromStdString(m.uniqueName("k")), QString("k2"));
        QCOMPARE(QString::fromStdString(m.uniqueName("k1")), QString("k2"));   // a copy of k1
        for (const char* base : {"", "2x", "a.b", "a b", "m", "k", "k1", "mx"}) {
            const std::string name = m.uniqueName(base);
            QVERIFY2(Model::validName(name), name.c_str());
            QVERIFY2(!m.find(name), name.c_str());
        }
    }

    void cosmetic() {
        QVERIFY(Edit(MoveBlock{"m", 1, 2}).cosmetic());
        QVERIFY(Edit(SetBlockUi{"m", {}}).cosmetic());
        QVERIFY(Edit(SetPlots{{}}).cosmetic());
        QVERIFY(Edit(EditBatch{{MoveBlock{"m", 1, 2}, MoveBlock{"k", 3, 4}}, "move"}).cosmetic());
        QVERIFY(Edit(EditBatch{{}, "empty"}).cosmetic());
        QVERIFY(
            !Edit(EditBatch{{MoveBlock{"m", 1, 2}, SetParameter{"m", "mass", ParamValue{1.0}}}, "mixed"}).cosmetic());
        QVERIFY(!Edit(AddBlock{BlockSpec{"x", "translational.mass", 1, {}, {}}}).cosmetic());
        QVERIFY(!Edit(RemoveBlock{"m"}).cosmetic());
        QVERIFY(!Edit(Connect{wire("m.M", "g.R")}).cosmetic());
        QVERIFY(!Edit(Disconnect{wire("m.M", "k.R")}).cosmetic());
        QVERIFY(!Edit(SetParameter{"m", "mass", ParamValue{1.0}}).cosmetic());
        QVERIFY(!Edit(RenameBlock{"m", "n"}).cosmetic());   // result columns are named after blocks
        QVERIFY(!Edit(SetSimulation{{}}).cosmetic());
        // the inverse of a cosmetic edit is cosmetic too (undo needs no rebuild either)
        Model m = baseModel();
        QVERIFY(m.apply(MoveBlock{"m", 1, 2}).cosmetic());
        QVERIFY(m.apply(SetPlots{{}}).cosmetic());
        QVERIFY(!m.apply(SetParameter{"m", "mass", ParamValue{3.0}}).cosmetic());
    }

    void portRefs_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("block");   // "" if refused
        QTest::addColumn<QString>("port");
        QTest::newRow("plain") << "mass1.M"
                               << "mass1"
                               << "M";
        QTest::newRow("no dot") << "mass1"
                                << ""
                                << "";
        QTest::newRow("path: port after the last dot") << "st1.spring.R"
                                                       << "st1.spring"
                                                       << "R";
        QTest::newRow("empty path element") << "a..c"
                                            << ""
                                            << "";
        QTest::newRow("no block") << ".M"
                                  << ""
                                  << "";
        QTest::newRow("no port") << "mass1."
                                 << ""
                                 << "";
    }
    void portRefs() {
        QFETCH(QString, text);
        QFETCH(QString, block);
        QFETCH(QString, port);
        const auto ref = PortRef::parse(text.toStdString());
        QCOMPARE(ref.has_value(), !block.isEmpty());
        if (ref) {
            QCOMPARE(QString::fromStdString(ref->block), block);
            QCOMPARE(QString::fromStdString(ref->port), port);
            QCOMPARE(QString::fromStdString(ref->toString()), text);
        }
    }
};

QTEST_GUILESS_MAIN(TestModel)
#include "tst_model.moc"
