// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/dae/reduce.hpp"

#include "core/dae/dae_system.hpp"
#include "core/dae/structure.hpp"

#include <cmath>
#include <map>

namespace endstop::core::dae {

namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }
using Fate = ReductionPlan::Fate;

// An own variable the stage may look at: its block has no differentiated rows and no dummy
// derivatives, and the variable is not differentiated by index reduction.
struct Candidate {
    int unknown, block, var;
    const RowForm* form;
};

struct Occurrence {
    bool elsewhere = false;   // in a row other than its own (any order)
    bool rate = false;        // its rate enters some row
    bool differentiated = false;
};

class Stage {
public:
    explicit Stage(const DaeSystem& s) : m_s(s), m_occ(at(s.size())) {}

    ReductionPlan run() {
        findOccurrences();
        findCandidates();
        ReductionPlan r;
        r.fate.assign(at(m_s.size()), Fate::Kept);
        representatives();
        for (const Candidate& c : m_candidates) {
            if (m_isRep.count(c.unknown)) continue;
            if (combination(c, r)) continue;
            if (quadrature(c, r)) continue;
            explicitCandidate(c);
        }
        orderExplicits(r);
        for (ReductionPlan::Derived& d : r.explicits) d.reads = explicitReads(r, d.unknown);
        for (ReductionPlan::Derived& d : r.quadratures) d.reads = explicitReads(r, d.unknown);
        for (int u = 0; u < m_s.size(); ++u)
            if (r.fate[at(u)] == Fate::Kept) r.kept.push_back(u);
        for (const ReductionPlan::Derived& d : m_timed)
            if (r.fate[at(d.unknown)] == Fate::Kept) r.timed.push_back(d);
        r.reducedIndex.assign(at(m_s.size()), -1);
        for (std::size_t i = 0; i < r.kept.size(); ++i) r.reducedIndex[at(r.kept[i])] = static_cast<int>(i);
        return r;
    }

private:
    void findOccurrences() {
        std::vector<char> diffRow(m_s.rows.size(), 0);
        for (const Row& row : m_s.rows)
            if (row.kind == Row::Kind::Derivative) diffRow[at(row.index)] = 1;
        const Incidence inc = unionIncidence(m_s);
        for (std::size_t r = 0; r < inc.rows.size(); ++r)
            for (const auto& [u, o] : inc.rows[r]) {
                Occurrence& oc = m_occ[at(u)];
                oc.elsewhere = oc.elsewhere || static_cast<int>(r) != u;
                oc.rate = oc.rate || o == 1;
                oc.differentiated = oc.differentiated || diffRow[r] != 0;
            }
        m_rows = inc;
    }

    void findCandidates() {
        for (std::size_t bi = 0; bi < m_s.bindings.size(); ++bi) {
            const Binding& b = m_s.bindings[bi];
            if (b.tangent || static_cast<int>(b.slot.size()) != b.baseSlots) continue;
            const BlockStructure& st = m_s.structures[at(m_s.structureOf[bi])];
            for (std::size_t v = 0; v < b.varSlot.size(); ++v) {
                const int u = b.slot[at(b.varSlot[v])];
                if (m_s.dummyOf[at(u)] >= 0 || m_occ[at(u)].differentiated || v >= st.rowForms.size()) continue;
                m_candidates.push_back({u, static_cast<int>(bi), static_cast<int>(v), &st.rowForms[v]});
            }
        }
    }

    // The linear form of a candidate's row in global unknowns: (unknown, order, coefficient).
    std::vector<std::tuple<int, int, double>> globalTerms(const Candidate& c) const {
        const Binding& b = m_s.bindings[at(c.block)];
        std::vector<std::tuple<int, int, double>> out;
        for (const auto& [k, o, w] : c.form->terms) out.emplace_back(b.slot[at(k)], o, w);
        return out;
    }

    bool isNode(int u) const { return m_s.unknowns[at(u)].kind == Unknown::Kind::Node; }

    // States whose row is P' = v_n for a node velocity v_n: the first per node stays and stands
    // for the position of that node.
    void representatives() {
        for (const Candidate& c : m_candidates) {
            if (!c.form->linear || c.form->terms.size() != 2) continue;
            const auto terms = globalTerms(c);
            const auto& [u0, o0, w0] = terms[0];
            const auto& [u1, o1, w1] = terms[1];
            const bool selfFirst = u0 == c.unknown;
            const int node = selfFirst ? u1 : u0;
            const int selfOrder = selfFirst ? o0 : o1, nodeOrder = selfFirst ? o1 : o0;
            const double a = selfFirst ? w0 : w1, b = selfFirst ? w1 : w0;
            if (selfOrder != 1 || nodeOrder != 0 || !isNode(node) || a != -b) continue;
            if (m_rep.emplace(node, c.unknown).second) m_isRep[c.unknown] = node;
        }
    }

    bool combination(const Candidate& c, ReductionPlan& r) const {
        if (!c.form->linear) return false;
        ReductionPlan::Combination comb{c.unknown, 0.0, {}};
        double a = 0.0;
        for (const auto& [u, o, w] : globalTerms(c)) {
            if (u == c.unknown) {
                if (o != 1) return false;
                a = w;
                continue;
            }
            const auto rep = m_rep.find(u);
            if (o != 0 || !isNode(u) || rep == m_rep.end()) return false;
            comb.terms.push_back({rep->second, w});
        }
        if (a == 0.0 || comb.terms.empty()) return false;
        // A relative position an event function reads stays a state: as a difference of two
        // absolute positions it would carry their round-off (eps |phi| of a shaft that has turned
        // many times) into the contact test, and a stop held at its bound would chatter.
        const Binding& b = m_s.bindings[at(c.block)];
        const std::vector<char>& reads = m_s.structures[at(m_s.structureOf[at(c.block)])].eventReads;
        const std::size_t slot = at(b.varSlot[at(c.var)]);
        if (comb.terms.size() > 1 && (slot >= reads.size() || reads[slot])) return false;
        comb.offset = m_s.y0[at(c.unknown)];
        for (ReductionPlan::Term& t : comb.terms) {
            t.coefficient = -t.coefficient / a;
            comb.offset -= t.coefficient * m_s.y0[at(t.unknown)];
        }
        r.fate[at(c.unknown)] = Fate::Combination;
        r.combinations.push_back(std::move(comb));
        return true;
    }

    bool quadrature(const Candidate& c, ReductionPlan& r) const {
        const Block& blk = *m_s.bindings[at(c.block)].block;
        const double a = c.form->self1;
        if (!blk.vars()[at(c.var)].quadrature || m_occ[at(c.unknown)].elsewhere || c.form->self0 != 0.0 ||
            !std::isfinite(a) || a == 0.0)
            return false;
        r.fate[at(c.unknown)] = Fate::Quadrature;
        r.quadratures.push_back({c.unknown, c.block, c.var, a, {}});
        return true;
    }

    void explicitCandidate(const Candidate& c) {
        const Block& blk = *m_s.bindings[at(c.block)].block;
        const double a = c.form->self0;
        // a function of time stays an unknown: eliminated, nothing would test how well the steps
        // resolve it (the integral of a sine source lost two digits at rtol 1e-8)
        if (blk.vars()[at(c.var)].kind != VarKind::Algebraic || m_occ[at(c.unknown)].rate || !std::isfinite(a) ||
            a == 0.0)
            return;
        if (c.form->timed) {
            m_timed.push_back({c.unknown, c.block, c.var, a, {}});
            return;
        }
        m_explicit.emplace(c.unknown, ReductionPlan::Derived{c.unknown, c.block, c.var, a, {}});
    }

    // Kahn's algorithm over "e's row reads e2": an explicit variable is computed after those it
    // reads. Variables left in or behind a cycle (an algebraic loop) stay unknowns.
    void orderExplicits(ReductionPlan& r) {
        std::map<int, std::vector<int>> readers;
        std::map<int, int> pending;
        for (const auto& [u, d] : m_explicit) {
            pending[u] = 0;
            for (const auto& [w, o] : m_rows.rows[at(u)])
                if (w != u && m_explicit.count(w)) {
                    readers[w].push_back(u);
                    ++pending[u];
                }
        }
        std::vector<int> ready;
        for (const auto& [u, n] : pending)
            if (n == 0) ready.push_back(u);
        for (std::size_t i = 0; i < ready.size(); ++i) {
            const int u = ready[i];
            r.fate[at(u)] = Fate::Explicit;
            r.explicits.push_back(m_explicit.at(u));
            for (int w : readers[u])
                if (--pending[w] == 0) ready.push_back(w);
        }
    }

    std::vector<int> explicitReads(const ReductionPlan& r, int row) const {
        std::vector<int> out;
        for (const auto& [w, o] : m_rows.rows[at(row)])
            if (w != row && r.fate[at(w)] == Fate::Explicit) out.push_back(w);
        return out;
    }

    const DaeSystem& m_s;
    std::vector<ReductionPlan::Derived> m_timed;   // see ReductionPlan::timed
    std::vector<Occurrence> m_occ;
    Incidence m_rows;
    std::vector<Candidate> m_candidates;
    std::map<int, int> m_rep;     // node unknown -> the state integrating it
    std::map<int, int> m_isRep;   // state -> node
    std::map<int, ReductionPlan::Derived> m_explicit;
};

ReductionPlan keepAll(const DaeSystem& s) {
    ReductionPlan r;
    r.fate.assign(at(s.size()), Fate::Kept);
    r.reducedIndex.resize(at(s.size()));
    for (int u = 0; u < s.size(); ++u) {
        r.kept.push_back(u);
        r.reducedIndex[at(u)] = u;
    }
    return r;
}

}   // namespace

ReductionPlan planReduction(const DaeSystem& sys, bool enabled) {
    if (!enabled || sys.size() == 0) return keepAll(sys);
    ReductionPlan r = Stage(sys).run();
    if (r.size() == 0) return keepAll(sys);   // IDA needs an unknown
    return r;
}

}   // namespace endstop::core::dae
