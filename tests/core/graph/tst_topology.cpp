// SPDX-License-Identifier: GPL-3.0-or-later
// The topology stage on its own (core/graph/topology.hpp): which ports connections join into
// nodes, which nodes a reference grounds, what an open port becomes, how conditional ports and
// signal nets resolve, and the errors that name the blocks and ports at fault.
#include "support/model_builder.hpp"
#include "support/test_support.hpp"

#include "core/graph/topology.hpp"
#include "core/errors.hpp"

#include <QTest>

#include <algorithm>

using namespace endstop;
using core::graph::Topology;
using test::ModelBuilder;

namespace {

Topology topologyOf(const ModelBuilder& b) { return core::graph::buildTopology(b.model(), blocks::registry()); }

// The node a port belongs to, -1 for none (a signal port, a hidden one).
int nodeOf(const Topology& t, const std::string& block, const std::string& port) {
    const core::graph::TopoBlock& tb = t.blocks[static_cast<std::size_t>(t.blockIndex(block))];
    const int p = tb.block->portIndex(port);
    return p < 0 ? -1 : tb.portNode()[static_cast<std::size_t>(p)];
}

const core::graph::Node& node(const Topology& t, const std::string& block, const std::string& port) {
    return t.nodes[static_cast<std::size_t>(nodeOf(t, block, port))];
}

// The error diagnostics of building the model, or an empty list if it builds.
core::Diagnostics errorsOf(const ModelBuilder& b) {
    try {
        core::graph::buildTopology(b.model(), blocks::registry());
    } catch (const core::TopologyError& e) {
        return e.diagnostics();
    }
    return {};
}

QStringList texts(const core::Diagnostics& ds) {
    QStringList out;
    for (const core::Diagnostic& d : ds) out << QString::fromStdString(d.text());
    return out;
}

// m1 -- k -- m2, nothing grounded
ModelBuilder twoMassesOnASpring() {
    ModelBuilder b;
    b.block("m1", "translational.mass").block("k", "translational.spring").block("m2", "translational.mass");
    b.connect("m1.M", "k.R").connect("k.C", "m2.M");
    return b;
}

}   // namespace

class TestTopology : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // Each connection joins two ports; the ports it joins, directly or through others, are one node.
    void connectionsFormNodes() {
        const Topology t = topologyOf(twoMassesOnASpring());
        QCOMPARE(t.blocks.size(), std::size_t(3));
        QCOMPARE(t.nodes.size(), std::size_t(2));
        QCOMPARE(nodeOf(t, "m1", "M"), nodeOf(t, "k", "R"));
        QCOMPARE(nodeOf(t, "k", "C"), nodeOf(t, "m2", "M"));
        QVERIFY(nodeOf(t, "m1", "M") != nodeOf(t, "m2", "M"));
        QCOMPARE(t.describe(node(t, "k", "R")), std::string("{m1.M, k.R}"));
        QCOMPARE(t.describe(node(t, "k", "C")), std::string("{k.C, m2.M}"));
        QCOMPARE(node(t, "k", "R").domain, core::Domain::Translational);
    }

    // a -- b and c -- b never name a and c together, yet the three share one node (the union).
    void nodesAreTheUnionOfConnections() {
        ModelBuilder b;
        b.block("a", "translational.mass").block("k", "translational.spring").block("d", "translational.damper");
        b.connect("a.M", "k.R").connect("d.R", "k.R").connect("k.C", "d.C");
        const Topology t = topologyOf(b);
        QCOMPARE(t.nodes.size(), std::size_t(2));
        QCOMPARE(node(t, "a", "M").ports.size(), std::size_t(3));
        QCOMPARE(nodeOf(t, "a", "M"), nodeOf(t, "d", "R"));
        QCOMPARE(t.describe(node(t, "k", "C")), std::string("{k.C, d.C}"));
    }

    // Nodes are numbered in the order of their first port (blocks in the file's order, ports in
    // the block's), whatever order the connections come in, and list their ports in that order:
    // the unknowns follow the nodes, so a project gives the same bits however its wires are listed.
    void nodesFollowTheOrderOfTheirFirstPort() {
        ModelBuilder b;
        b.block("m1", "translational.mass").block("k1", "translational.spring").block("m2", "translational.mass");
        b.block("k2", "translational.spring").block("m3", "translational.mass");
        b.connect("k2.C", "m3.M").connect("m2.M", "k2.R").connect("k1.C", "m2.M").connect("k1.R", "m1.M");
        const Topology t = topologyOf(b);
        QCOMPARE(t.nodes.size(), std::size_t(3));
        QCOMPARE(nodeOf(t, "m1", "M"), 0);
        QCOMPARE(nodeOf(t, "m2", "M"), 1);
        QCOMPARE(nodeOf(t, "m3", "M"), 2);
        QCOMPARE(t.describe(t.nodes[1]), std::string("{k1.C, m2.M, k2.R}"));
    }

    // A reference grounds the node it is attached to, and only that one.
    void referenceGroundsItsNode() {
        ModelBuilder b = twoMassesOnASpring();
        b.block("g", "translational.reference").connect("m2.M", "g.R");
        const Topology t = topologyOf(b);
        QCOMPARE(t.nodes.size(), std::size_t(2));
        QVERIFY(node(t, "m2", "M").grounded);
        QCOMPARE(nodeOf(t, "g", "R"), nodeOf(t, "m2", "M"));
        QVERIFY(!node(t, "m1", "M").grounded);
    }

    // Nothing is grounded without a reference: two floating nodes.
    void noReferenceNoGround() {
        const Topology t = topologyOf(twoMassesOnASpring());
        for (const core::graph::Node& n : t.nodes) QVERIFY(!n.grounded);
    }

    // An open port is a node of its own, a free end, with a note naming the flow of its domain.
    void unconnectedPortIsAFreeEnd() {
        ModelBuilder b;
        b.block("k", "translational.spring").block("g", "translational.reference").connect("k.R", "g.R");
        b.block("s", "rotational.spring").block("gr", "rotational.reference").connect("s.R", "gr.R");
        const Topology t = topologyOf(b);
        QCOMPARE(t.nodes.size(), std::size_t(4));
        QCOMPARE(node(t, "k", "C").ports.size(), std::size_t(1));
        QVERIFY(!node(t, "k", "C").grounded);
        const QStringList notes = texts(t.diagnostics);
        QCOMPARE(notes.size(), 2);
        QVERIFY2(notes.contains("block 'k', port 'C': port is not connected: it is a free end (zero force)"),
                 qPrintable(notes.join('\n')));
        QVERIFY2(notes.contains("block 's', port 'C': port is not connected: it is a free end (zero torque)"),
                 qPrintable(notes.join('\n')));
        for (const core::Diagnostic& d : t.diagnostics) QCOMPARE(d.severity, core::Severity::Info);
    }

    // A reference alone is grounded, not a free end: no note.
    void loneReferenceIsNoFreeEnd() {
        ModelBuilder b;
        b.block("g", "translational.reference");
        const Topology t = topologyOf(b);
        QCOMPARE(t.nodes.size(), std::size_t(1));
        QVERIFY(t.nodes[0].grounded);
        QVERIFY(t.diagnostics.empty());
    }

    // Stiction's FK/FSf/FSr exist only with limits_from = signals: hidden, they are in no node and
    // a connection to one names the ports the block does have.
    void hiddenPortsAreAbsent() {
        ModelBuilder b;
        b.block("f", "translational.stiction").block("g", "translational.reference").connect("f.C", "g.R");
        const Topology t = topologyOf(b);
        QCOMPARE(nodeOf(t, "f", "FK"), -1);
        QCOMPARE(t.nodes.size(), std::size_t(2));   // f.R (free) and {f.C, g.R}

        b.block("fk", "signal.constant").connect("fk.y", "f.FK");
        const QStringList errors = texts(errorsOf(b));
        QCOMPARE(errors,
                 QStringList{"block 'f', port 'FK': block type translational.stiction has no port 'FK' (ports: R, C)"});
    }

    // Shown, a conditional input must have a source, and reads the output it is wired to.
    void conditionalPortsWhenShown() {
        ModelBuilder b;
        b.block("f", "translational.stiction", {{"limits_from", "signals"}});
        b.block("fk", "signal.constant", {{"value", 8.0}}).block("lo", "signal.constant", {{"value", -10.0}});
        b.connect("fk.y", "f.FK").connect("lo.y", "f.FSf");
        const QStringList errors = texts(errorsOf(b));
        QCOMPARE(errors, QStringList{"block 'f', port 'FSr': input signal port has no source "
                                     "(connect it to a signal output such as a constant or a sensor)"});

        b.block("hi", "signal.constant", {{"value", 10.0}}).connect("hi.y", "f.FSr");
        const Topology t = topologyOf(b);
        const core::graph::TopoBlock& f = t.blocks[static_cast<std::size_t>(t.blockIndex("f"))];
        const core::graph::PortAt source = f.source()[static_cast<std::size_t>(f.block->portIndex("FK"))];
        QCOMPARE(source.block, t.blockIndex("fk"));
        QCOMPARE(source.port, t.blocks[static_cast<std::size_t>(source.block)].block->outputVar(0));
        QCOMPARE(nodeOf(t, "f", "FK"), -1);   // a signal port belongs to no node
    }

    // One output may feed several inputs; two outputs on one net are an error naming both.
    void signalNets() {
        ModelBuilder b;
        b.block("c", "signal.constant").block("g1", "signal.gain").block("g2", "signal.gain");
        b.connect("c.y", "g1.u").connect("c.y", "g2.u");
        QVERIFY(errorsOf(b).empty());

        b.block("d", "signal.constant").connect("d.y", "g1.u");
        const QStringList errors = texts(errorsOf(b));
        QCOMPARE(errors.size(), 1);
        QVERIFY2(errors[0].contains("signal outputs c.y and d.y are wired together"), qPrintable(errors[0]));
    }

    // Ports of different domains (or a signal and a conserving port) do not connect; the error
    // names both ends with their domains.
    void domainMismatchNamesBothPorts() {
        ModelBuilder b;
        b.block("m", "translational.mass").block("J", "rotational.inertia").connect("m.M", "J.I");
        const core::Diagnostics errors = errorsOf(b);
        QCOMPARE(errors.size(), std::size_t(1));
        QCOMPARE(errors[0].block, std::string("m"));
        QCOMPARE(errors[0].port, std::string("M"));
        QCOMPARE(errors[0].message,
                 std::string("cannot connect m.M (translational) to J.I (rotational): different domains"));

        ModelBuilder s;
        s.block("m", "translational.mass").block("c", "signal.constant").connect("c.y", "m.M");
        const QStringList signal = texts(errorsOf(s));
        QCOMPARE(signal.size(), 1);
        QVERIFY2(signal[0].contains("cannot connect c.y (") && signal[0].contains("to m.M (translational)"),
                 qPrintable(signal[0]));
    }

    // A port the block does not have is reported with the ports it has; every bad connection is
    // reported, not just the first.
    void unknownPortsAreAllReported() {
        ModelBuilder b;
        b.block("m", "translational.mass").block("k", "translational.spring");
        b.connect("m.X", "k.R").connect("k.Q", "m.M");
        const QStringList errors = texts(errorsOf(b));
        QCOMPARE(errors,
                 (QStringList{"block 'm', port 'X': block type translational.mass has no port 'X' (ports: M)",
                              "block 'k', port 'Q': block type translational.spring has no port 'Q' (ports: R, C)"}));
    }

    // A block of a type the registry does not know is an error naming the block.
    void unknownBlockType() {
        core::model::Model m;
        core::model::BlockSpec spec;
        spec.name = "w";
        spec.type = "translational.warp_drive";
        m.apply(core::model::AddBlock{spec});
        try {
            core::graph::buildTopology(m, blocks::registry());
            QFAIL("an unknown type built");
        } catch (const core::TopologyError& e) {
            QCOMPARE(QString::fromStdString(e.diagnostics().at(0).text()),
                     QString("block 'w': unknown block type 'translational.warp_drive'"));
        }
    }

    // A connection to a block that does not exist never reaches the topology: the model refuses
    // the edit and names the block.
    void unknownBlockIsRefusedByTheModel() {
        ModelBuilder b;
        b.block("m", "translational.mass");
        try {
            b.connect("m.M", "ghost.R");
            QFAIL("a connection to a missing block was accepted");
        } catch (const core::ModelError& e) {
            QCOMPARE(QString(e.what()), QString("connection ghost.R: no block named 'ghost'"));
        }
    }

    // portName and blockIndex, the names the diagnostics and later stages use.
    // Blocks of one type with equal parameters share one block object; any difference in type or in
    // a value, to the bit, gives a block of its own.
    void equalBlocksShareOneObject() {
        ModelBuilder b;
        b.block("m1", "translational.mass", {{"mass", 2.0}})
            .block("m2", "translational.mass", {{"mass", 2.0}})
            .block("m3", "translational.mass", {{"mass", 3.0}})
            .block("m4", "translational.mass", {{"mass", 2.0}, {"initial_velocity", 1.0}})
            .block("i1", "rotational.inertia", {{"inertia", 2.0}})
            .block("m5", "translational.mass", {{"mass", 2.0}, {"initial_velocity", -0.0}})
            .block("m6", "translational.mass", {{"mass", 2.0}, {"initial_velocity", 0.0}})
            .block("m7", "translational.mass", {{"mass", 2.0}, {"initial_velocity", 0.0}})
            .block("s1", "translational.hard_stop", {{"upper_bound", 0.01}})
            .block("s2", "translational.hard_stop", {{"upper_bound", 0.02}, {"lower_bound", 0.015}});
        const Topology t = topologyOf(b);
        const auto blockOf = [&](const char* name) {
            return t.blocks[static_cast<std::size_t>(t.blockIndex(name))].block;
        };
        QCOMPARE(blockOf("m1"), blockOf("m2"));
        QVERIFY(blockOf("m3") != blockOf("m1"));
        QVERIFY(blockOf("m4") != blockOf("m1"));
        QVERIFY(blockOf("i1") != blockOf("m1"));
        // compared to the bit, and as written: -0 is not 0, and a default written out is a value
        QVERIFY(blockOf("m5") != blockOf("m6"));
        QCOMPARE(blockOf("m6"), blockOf("m7"));
        QVERIFY(blockOf("m6") != blockOf("m1"));
        QCOMPARE(t.owned.size(), std::size_t{8});
        // distinct blocks whose declarations are equal share them: one mass's descriptors, not five
        QCOMPARE(&blockOf("m3")->params(), &blockOf("m1")->params());
        QCOMPARE(&blockOf("m5")->vars(), &blockOf("m1")->vars());
        QVERIFY(&blockOf("i1")->params() != &blockOf("m1")->params());
        // stops of other bounds, one starting in contact: the initial values are each block's own
        QCOMPARE(&blockOf("s2")->discretes(), &blockOf("s1")->discretes());
        bool startsElsewhere = false;
        for (std::size_t d = 0; d < blockOf("s1")->discretes().size(); ++d)
            startsElsewhere = startsElsewhere || blockOf("s1")->initialDiscrete(static_cast<int>(d)) !=
                                                     blockOf("s2")->initialDiscrete(static_cast<int>(d));
        QVERIFY(startsElsewhere);
        QCOMPARE(std::get<double>(blockOf("m3")->values().at("mass")), 3.0);
        QCOMPARE(std::get<double>(blockOf("m4")->values().at("initial_velocity")), 1.0);
        // each still has its own name, ports and node
        QCOMPARE(t.portName(core::graph::PortAt{1, 0}), std::string("m2.M"));
        QVERIFY(nodeOf(t, "m1", "M") != nodeOf(t, "m2", "M"));
    }

    // A warning of a shared block is reported for every block that shares it, under its own name.
    void sharedBlocksReportTheirWarningsEach() {
        ModelBuilder b;
        const core::ParamValues high{{"kinetic_friction", 20.0}};
        b.block("f1", "translational.stiction", high).block("f2", "translational.stiction", high);
        const Topology t = topologyOf(b);
        QCOMPARE(t.blocks[0].block, t.blocks[1].block);
        QCOMPARE(t.owned.size(), std::size_t{1});
        QStringList named;
        for (const core::Diagnostic& d : t.diagnostics)
            if (d.severity == core::Severity::Warning) named << QString::fromStdString(d.block + "." + d.param);
        named.sort();
        QCOMPARE(named, (QStringList{"f1.kinetic_friction", "f2.kinetic_friction"}));
    }

    void namesAndIndices() {
        const Topology t = topologyOf(twoMassesOnASpring());
        QCOMPARE(t.blockIndex("k"), 1);
        QCOMPARE(t.blockIndex("nobody"), -1);
        QCOMPARE(t.portName(core::graph::PortAt{1, 1}), std::string("k.C"));
    }
};

QTEST_GUILESS_MAIN(TestTopology)
#include "tst_topology.moc"
