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

// An own variable the stage may look at. Where index reduction differentiated its row, diffRow is
// the derivative row; see differentiable().
struct Candidate {
    int unknown, block, var;
    const RowForm* form;
    int diffRow = -1;
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
        pairs();
        for (const Candidate& c : m_candidates) {
            if (m_isRep.count(c.unknown) || m_paired.count(c.unknown)) continue;
            if (combination(c, r)) continue;
            if (quadrature(c, r)) continue;
            explicitCandidate(c);
        }
        derivativeExplicits();
        selectStates(r);
        flattenCombinations(r);
        orderExplicits(r);
        for (ReductionPlan::Derived& d : r.explicits) explicitReads(r, d);
        for (ReductionPlan::Derived& d : r.quadratures) explicitReads(r, d);
        r.readList.shrink_to_fit();
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
        Incidence inc = unionIncidence(m_s);
        // An unknown with a dummy derivative: wherever its rate enters, and in the time derivative
        // of every differentiated row it is in, the dummy stands for it. So neither is a rate
        // that an elimination would have to give.
        for (std::size_t r = 0; r < inc.rows.size(); ++r)
            for (const auto& [u, o] : inc.rows[r]) {
                Occurrence& oc = m_occ[at(u)];
                const bool dummy = m_s.dummyOf[at(u)] >= 0;
                oc.elsewhere = oc.elsewhere || static_cast<int>(r) != u;
                oc.rate = oc.rate || (o == 1 && !dummy);
                oc.differentiated = oc.differentiated || (diffRow[r] != 0 && !dummy);
            }
        // a derivative row reads what its row reads, and the dummies of those that have one
        // (the incidence holds the rows before index reduction)
        inc.rows.resize(m_s.rows.size());
        for (std::size_t r = 0; r < m_s.rows.size(); ++r) {
            if (m_s.rows[r].kind != Row::Kind::Derivative) continue;
            std::vector<std::pair<int, int>> reads;
            for (const auto& [u, o] : inc.rows[at(m_s.rows[r].index)]) {
                reads.emplace_back(u, 0);
                if (m_s.dummyOf[at(u)] >= 0) reads.emplace_back(m_s.dummyOf[at(u)], 0);
            }
            inc.rows[r] = std::move(reads);
        }
        m_rows = std::move(inc);
    }

    void findCandidates() {
        for (std::size_t bi = 0; bi < m_s.bindings.size(); ++bi) {
            const Binding& b = m_s.bindings[bi];
            const std::vector<RowForm>& forms = m_s.rowFormsOfBlock(static_cast<int>(bi));
            for (std::size_t v = 0; v < b.varSlot().size(); ++v) {
                const int u = b.slot()[at(b.varSlot()[v])];
                if (m_occ[at(u)].differentiated || v >= forms.size()) continue;
                m_candidates.push_back({u, static_cast<int>(bi), static_cast<int>(v), &forms[v], b.ownDiff()[v]});
            }
        }
    }

    // Index reduction and a candidate solved from its own row: it has no dummy derivative and its
    // row is not differentiated, or both, with the derivative row numbered like the dummy (rows
    // and unknowns are numbered alike). The dummy is then solved from the derivative row
    // (derivativeExplicits()).
    bool differentiable(const Candidate& c) const { return m_s.dummyOf[at(c.unknown)] == c.diffRow; }

    // The linear form of a candidate's row in global unknowns: (unknown, order, coefficient).
    std::vector<std::tuple<int, int, double>> globalTerms(const Candidate& c) const {
        const Binding& b = m_s.bindings[at(c.block)];
        std::vector<std::tuple<int, int, double>> out;
        for (const auto& [k, o, w] : c.form->terms) out.emplace_back(b.slot()[at(k)], o, w);
        return out;
    }

    bool isNode(int u) const { return m_s.unknowns[at(u)].kind == Unknown::Kind::Node; }

    // States whose row is P' = v_n for a node velocity v_n: the first per node stays and stands
    // for the position of that node.
    void representatives() {
        for (const Candidate& c : m_candidates) {
            if (!c.form->linear || c.form->terms.size() != 2 || !differentiable(c)) continue;
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

    // Pairs (reduce.hpp): t an algebraic own variable whose own row, a linear form, does not hold
    // it; w a node velocity in that row whose rate enters no row, and whose balance holds t with a
    // constant coefficient (t's block is the only one reading t, so that coefficient is its own).
    // w is solved from t's row, t from w's balance. Where t's row reads only other node
    // velocities, w is an alias of them (a gear's w_B = w_A / r), which combinations see through.
    void pairs() {
        std::vector<int> users(at(m_s.size()), 0);
        for (const Binding& b : m_s.bindings)
            for (const int u : b.slot()) ++users[at(u)];
        for (const Candidate& c : m_candidates) {
            const Binding& b = m_s.bindings[at(c.block)];
            const Block& blk = *b.block;
            const int t = c.unknown;
            if (!c.form->linear || c.form->self0 != 0.0 || c.form->self1 != 0.0 ||
                blk.vars()[at(c.var)].kind != VarKind::Algebraic || m_occ[at(t)].rate || users[at(t)] != 1 ||
                m_isRep.count(t) || m_s.dummyOf[at(t)] >= 0)
                continue;
            const auto terms = globalTerms(c);
            for (const auto& [w, o, coefficient] : terms) {
                // where t's row is differentiated, the derivative row gives w's dummy
                if (o != 0 || coefficient == 0.0 || !isNode(w) || m_occ[at(w)].rate || m_occ[at(w)].differentiated ||
                    m_s.dummyOf[at(w)] != c.diffRow || m_paired.count(w) || m_rep.count(w))
                    continue;
                double inBalance = 0.0;   // t's coefficient in w's balance, through the ports at w's node
                bool atNode = false;
                for (std::size_t p = 0; p < b.portRow().size(); ++p)
                    if (b.portRow()[p] == w) {   // no coefficients (modes not sampled): none to rely on
                        const std::size_t local = b.ownRow().size() + p;
                        inBalance += local < c.form->in.size() ? c.form->in[local] : 0.0;
                        atNode = true;
                    }
                if (!atNode || !std::isfinite(inBalance) || inBalance == 0.0) continue;
                ReductionPlan::Derived byRow{w, c.block, c.var, coefficient, t};
                ReductionPlan::Derived byBalance{t, -1, -1, inBalance, w};
                m_explicit.emplace(w, byRow);
                m_explicit.emplace(t, byBalance);
                m_paired[w] = t;
                m_paired[t] = w;
                std::vector<std::pair<int, double>> alias;
                bool nodes = true;
                for (const auto& [u, uo, uc] : terms)
                    if (u != w) {
                        nodes = nodes && uo == 0 && isNode(u);
                        alias.emplace_back(u, -uc / coefficient);
                    }
                if (nodes) m_alias[w] = std::move(alias);
                break;
            }
        }
    }

    // w times the node velocity u as the rates of kept positions (representatives), through
    // aliases; false where some node has none
    bool represented(int u, double w, std::map<int, double>& out, int depth = 0) const {
        if (const auto rep = m_rep.find(u); rep != m_rep.end()) {
            out[rep->second] += w;
            return true;
        }
        const auto alias = m_alias.find(u);
        if (alias == m_alias.end() || depth > 16) return false;
        for (const auto& [v, k] : alias->second)
            if (!represented(v, w * k, out, depth + 1)) return false;
        return true;
    }

    bool combination(const Candidate& c, ReductionPlan& r) {
        if (!c.form->linear || c.diffRow >= 0) return false;
        std::map<int, double> rates;   // representative -> coefficient
        double a = 0.0;
        for (const auto& [u, o, w] : globalTerms(c)) {
            if (u == c.unknown) {
                if (o != 1) return false;
                a = w;
                continue;
            }
            if (o != 0 || !isNode(u) || !represented(u, w, rates)) return false;
        }
        ReductionPlan::Combination comb{c.unknown, 0.0, {}};
        for (const auto& [rep, w] : rates)
            if (w != 0.0) comb.terms.push_back({rep, w});
        if (a == 0.0 || comb.terms.empty()) return false;
        comb.offset = m_s.y0[at(c.unknown)];
        for (ReductionPlan::Term& t : comb.terms) {
            t.coefficient = -t.coefficient / a;
            comb.offset -= t.coefficient * m_s.y0[at(t.unknown)];
        }
        // A relative position an event function reads stays a state: as a difference of two
        // absolute positions it would carry their round-off (eps |phi| of a shaft that has turned
        // many times) into the contact test, and a stop held at its bound would chatter. It may
        // take the place of one of those positions instead (selectStates).
        const Binding& b = m_s.bindings[at(c.block)];
        const BlockStructure& st = m_s.structures[at(m_s.structureOf[at(c.block)])];
        if (comb.terms.size() > 1 && st.eventRead(b, at(b.varSlot()[at(c.var)]))) {
            m_relative.push_back(std::move(comb));
            return false;
        }
        r.fate[at(c.unknown)] = Fate::Combination;
        m_combinations.push_back(std::move(comb));
        return true;
    }

    // State selection (reduce.hpp): each relative position kept for its events, x = offset +
    // sum c_j P_j over the positions P_j as they stand (earlier exchanges substituted), takes the
    // place of the P_k with the largest |c_k| that no event function reads: P_k = (x - offset -
    // sum_{j != k} c_j P_j) / c_k. Its row P_k' = v_k follows from x's and the others' rows, so it
    // leaves with it.
    void selectStates(ReductionPlan& r) {
        if (m_relative.empty()) return;
        std::vector<char> eventRead(at(m_s.size()), 0);
        for (const int bi : m_s.eventBlocks) {
            const Binding& b = m_s.bindings[at(bi)];
            const BlockStructure& st = m_s.structures[at(m_s.structureOf[at(bi)])];
            for (std::size_t k = 0; k < b.slot().size(); ++k)
                if (st.eventRead(b, k)) eventRead[at(b.slot()[k])] = 1;
        }
        std::map<int, std::size_t> exchanged;   // position -> its combination in r
        for (const ReductionPlan::Combination& x : m_relative) {
            std::map<int, double> terms;
            double offset = x.offset;
            for (const ReductionPlan::Term& t : x.terms) {
                const auto e = exchanged.find(t.unknown);
                if (e == exchanged.end()) {
                    terms[t.unknown] += t.coefficient;
                    continue;
                }
                const ReductionPlan::Combination& p = m_combinations[e->second];
                offset += t.coefficient * p.offset;
                for (const ReductionPlan::Term& pt : p.terms) terms[pt.unknown] += t.coefficient * pt.coefficient;
            }
            int k = -1;
            for (const auto& [u, c] : terms)
                if (c != 0.0 && m_isRep.count(u) && !eventRead[at(u)] && u != x.unknown &&
                    (k < 0 || std::abs(c) > std::abs(terms[k])))
                    k = u;
            if (k < 0 || terms.size() > kMaxTerms) continue;
            const double ck = terms[k];
            ReductionPlan::Combination p{k, -offset / ck, {{x.unknown, 1.0 / ck}}};
            for (const auto& [u, c] : terms)
                if (u != k && c != 0.0) p.terms.push_back({u, -c / ck});
            r.fate[at(k)] = Fate::Combination;
            exchanged[k] = m_combinations.size();
            m_combinations.push_back(std::move(p));
        }
    }

    // Combinations read only kept unknowns: a position that selectStates() exchanged is replaced
    // by its own combination wherever it is a term (those refer to positions exchanged later, or
    // to none, so this ends).
    void flattenCombinations(ReductionPlan& r) {
        std::map<int, std::size_t> index;   // combination unknown -> its place in r
        for (std::size_t i = 0; i < m_combinations.size(); ++i) index[m_combinations[i].unknown] = i;
        std::vector<char> done(m_combinations.size(), 0);
        auto flatten = [&](auto& self, std::size_t i) -> void {
            if (done[i]) return;
            done[i] = 1;
            ReductionPlan::Combination& c = m_combinations[i];
            std::map<int, double> terms;
            for (const ReductionPlan::Term& t : c.terms) {
                const auto e = index.find(t.unknown);
                if (e == index.end()) {
                    terms[t.unknown] += t.coefficient;
                    continue;
                }
                self(self, e->second);
                const ReductionPlan::Combination& p = m_combinations[e->second];
                c.offset += t.coefficient * p.offset;
                for (const ReductionPlan::Term& pt : p.terms) terms[pt.unknown] += t.coefficient * pt.coefficient;
            }
            c.terms.clear();
            for (const auto& [u, w] : terms)
                if (w != 0.0) c.terms.push_back({u, w});
        };
        for (std::size_t i = 0; i < m_combinations.size(); ++i) flatten(flatten, i);
        for (const ReductionPlan::Combination& c : m_combinations) r.combinations.add(c);
        m_combinations = {};
    }

    bool quadrature(const Candidate& c, ReductionPlan& r) const {
        const Block& blk = *m_s.bindings[at(c.block)].block;
        const double a = c.form->self1;
        if (!blk.vars()[at(c.var)].quadrature || c.diffRow >= 0 || m_occ[at(c.unknown)].elsewhere ||
            c.form->self0 != 0.0 || !std::isfinite(a) || a == 0.0)
            return false;
        r.fate[at(c.unknown)] = Fate::Quadrature;
        r.quadratures.push_back({c.unknown, c.block, c.var, a, c.unknown});
        return true;
    }

    void explicitCandidate(const Candidate& c) {
        const Block& blk = *m_s.bindings[at(c.block)].block;
        const double a = c.form->self0;
        // a function of time stays an unknown: eliminated, nothing would test how well the steps
        // resolve it (the integral of a sine source lost two digits at rtol 1e-8)
        if (blk.vars()[at(c.var)].kind != VarKind::Algebraic || m_occ[at(c.unknown)].rate || !std::isfinite(a) ||
            a == 0.0 || !differentiable(c))
            return;
        if (c.form->timed) {
            m_timed.push_back({c.unknown, c.block, c.var, a, c.unknown});
            return;
        }
        m_explicit.emplace(c.unknown, ReductionPlan::Derived{c.unknown, c.block, c.var, a, c.unknown});
    }

    // The dummy derivative of an explicit variable (or of a pair's node velocity) whose row index
    // reduction differentiated is solved from the derivative row, with the same coefficient: the
    // row is a u + rest(...) with a constant, so its time derivative is a u' + d rest/dt, and the
    // dummy stands for u'. The rest's derivative reads the others' dummies, or their rates where
    // they have none: those must then be rates IDA has (kept unknowns, combinations).
    void derivativeExplicits() {
        std::vector<ReductionPlan::Derived> found;
        for (const auto& [u, d] : m_explicit) {
            if (d.block < 0) continue;
            const Binding& b = m_s.bindings[at(d.block)];
            const int diffRow = b.ownDiff()[at(d.var)];
            if (diffRow < 0 || m_s.dummyOf[at(u)] != diffRow) continue;
            const int row = b.ownRow()[at(d.var)];
            bool rates = true;
            for (const auto& [w, o] : m_rows.rows[at(row)])
                rates = rates && o == 0 && (w == u || m_s.dummyOf[at(w)] >= 0 || !m_explicit.count(w));
            if (!rates) continue;
            found.push_back({diffRow, d.block, d.var, d.coefficient, diffRow});
            m_derivativeOf[diffRow] = u;
        }
        for (const ReductionPlan::Derived& d : found) m_explicit.emplace(d.unknown, d);
    }

    // Kahn's algorithm over "e's row reads e2": an explicit variable is computed after those it
    // reads. Variables left in or behind a cycle (an algebraic loop) stay unknowns, and so does a
    // pair's other half (its row is the one left behind).
    void orderExplicits(ReductionPlan& r) {
        std::map<int, std::vector<int>> readers;
        std::map<int, int> pending;
        for (const auto& [u, d] : m_explicit) {
            pending[u] = 0;
            for (const auto& [w, o] : m_rows.rows[at(d.row)])
                if (w != u && m_explicit.count(w)) {
                    readers[w].push_back(u);
                    ++pending[u];
                }
        }
        std::vector<int> ready;
        for (const auto& [u, n] : pending)
            if (n == 0) ready.push_back(u);
        std::vector<char> ordered(at(m_s.size()), 0);
        for (std::size_t i = 0; i < ready.size(); ++i) {
            ordered[at(ready[i])] = 1;
            for (int w : readers[ready[i]])
                if (--pending[w] == 0) ready.push_back(w);
        }
        for (const int u : ready) {
            const auto pair = m_paired.find(u);
            if (pair != m_paired.end() && !ordered[at(pair->second)]) continue;
            // a dummy whose variable stays: both stay (its derivative row reads the variable, so
            // the variable came first)
            const auto base = m_derivativeOf.find(u);
            if (base != m_derivativeOf.end() && r.fate[at(base->second)] != Fate::Explicit) continue;
            r.fate[at(u)] = Fate::Explicit;
            r.explicits.push_back(m_explicit.at(u));
        }
    }

    // d's reads, appended to r's list
    void explicitReads(ReductionPlan& r, ReductionPlan::Derived& d) const {
        d.readsFirst = static_cast<int>(r.readList.size());
        for (const auto& [w, o] : m_rows.rows[at(d.row)])
            if (w != d.unknown && r.fate[at(w)] == Fate::Explicit) r.readList.push_back(w);
        d.readsEnd = static_cast<int>(r.readList.size());
    }

    const DaeSystem& m_s;
    std::vector<ReductionPlan::Derived> m_timed;   // see ReductionPlan::timed
    std::vector<Occurrence> m_occ;
    Incidence m_rows;
    std::vector<Candidate> m_candidates;
    std::map<int, int> m_rep;     // node unknown -> the state integrating it
    std::map<int, int> m_isRep;   // state -> node
    std::map<int, ReductionPlan::Derived> m_explicit;
    std::map<int, int> m_paired;                                  // a pair's halves, each to the other
    std::map<int, int> m_derivativeOf;                            // an explicit dummy -> its variable
    std::map<int, std::vector<std::pair<int, double>>> m_alias;   // paired node -> the velocities it is
    std::vector<ReductionPlan::Combination> m_relative;           // kept for events (selectStates)
    std::vector<ReductionPlan::Combination> m_combinations;       // as built; into the plan, flat
    static constexpr std::size_t kMaxTerms = 32;   // an exchange whose combination would hold more is not made
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

void ReductionPlan::Combinations::add(const Combination& c) {
    unknown.push_back(c.unknown);
    offset.push_back(c.offset);
    for (const Term& t : c.terms) {
        termUnknown.push_back(t.unknown);
        termCoefficient.push_back(t.coefficient);
    }
    first.push_back(static_cast<int>(termUnknown.size()));
}

ReductionPlan planReduction(const DaeSystem& sys, bool enabled) {
    if (!enabled || sys.size() == 0) return keepAll(sys);
    ReductionPlan r = Stage(sys).run();
    if (r.size() == 0) return keepAll(sys);   // IDA needs an unknown
    // kept for the whole run: without the slack of growing them (2.7 MB at b10000)
    for (auto* v : {&r.combinations.unknown, &r.combinations.first, &r.combinations.termUnknown}) v->shrink_to_fit();
    r.combinations.offset.shrink_to_fit();
    r.combinations.termCoefficient.shrink_to_fit();
    r.explicits.shrink_to_fit();
    r.quadratures.shrink_to_fit();
    r.timed.shrink_to_fit();
    return r;
}

}   // namespace endstop::core::dae
