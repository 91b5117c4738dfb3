// SPDX-License-Identifier: GPL-3.0-or-later
// Undo restores the exact model, including the order of connections (a file saved after undo is
// byte-identical to the one saved before the edit).
#include "core/io/project_file.hpp"
#include "support/test_support.hpp"

#include <QTest>

using namespace endstop;

class TestEditOrder : public QObject {
    Q_OBJECT

private:
    static core::model::Model model() {
        return test::modelFromJson(R"({
          "blocks": [
            {"name": "a", "type": "translational.mass"}, {"name": "s1", "type": "translational.spring"},
            {"name": "b", "type": "translational.mass"}, {"name": "s2", "type": "translational.spring"},
            {"name": "g", "type": "translational.reference"}],
          "connections": [["a.M", "s1.R"], ["s1.C", "b.M"], ["b.M", "s2.R"], ["s2.C", "g.R"]]})");
    }

private Q_SLOTS:
    void removeBlockUndoKeepsConnectionOrder() {
        core::model::Model m = model();
        const QByteArray before = core::io::serializeProject(m);
        const core::model::Edit undo = m.apply(core::model::RemoveBlock{"b"});   // its connections sit in the middle
        QCOMPARE(m.connections().size(), std::size_t(2));
        m.apply(undo);
        QCOMPARE(core::io::serializeProject(m), before);
    }

    void disconnectUndoKeepsPlaceAndOrientation() {
        core::model::Model m = model();
        const QByteArray before = core::io::serializeProject(m);
        const core::model::Edit undo = m.apply(core::model::Disconnect{{{"b", "M"}, {"s1", "C"}}});   // given swapped
        m.apply(undo);
        QCOMPARE(core::io::serializeProject(m), before);
    }

    void connectAppendsByDefault() {
        core::model::Model m = model();
        m.apply(core::model::Connect{{{"a", "M"}, {"g", "R"}}});
        QCOMPARE(m.connections().back().a.block, std::string("a"));
    }
};

QTEST_MAIN(TestEditOrder)
#include "tst_edit_order.moc"
