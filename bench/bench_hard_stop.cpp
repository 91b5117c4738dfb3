// SPDX-License-Identifier: GPL-3.0-or-later
// Steps spent per event by hard stop models: each scenario runs once and prints IDA steps, logged
// events, restarts (every root or time event, kinks of the contact laws included), steps per
// event and per restart, and the wall time. Not a test: nothing is asserted.
//   bench_hard_stop [rtol]
#include "blocks/registry.hpp"
#include "core/io/project_file.hpp"
#include "core/simulation/simulate.hpp"

#include <QByteArray>
#include <QString>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace endstop;

namespace {

class CountingSink : public core::ResultSink {
public:
    void begin(const std::vector<core::Column>&) override {}
    void row(double, std::span<const double>) override {}
    void end(const core::RunStats& s) override { stats = s; }
    core::RunStats stats;
};

struct Scenario {
    const char* name;
    std::string json;   // a project; empty: load `file`
    const char* file = nullptr;
};

std::string bodyOnStop(const std::string& stop) {
    return R"({"format":"endstop-project","formatVersion":1,"simulation":{"stop_time":1},"blocks":[
        {"name":"m","type":"translational.mass","parameters":{"mass":2,"initial_velocity":1}},
        {"name":"stop","type":"translational.hard_stop","parameters":{)" +
           stop + R"(}},
        {"name":"g","type":"translational.reference"}],"connections":[["m.M","stop.R"],["stop.C","g.R"]]})";
}

void run(const Scenario& s, double rtol) {
    const core::model::Model model =
        s.file ? core::io::loadProject(QString(ENDSTOP_SOURCE_DIR "/resources/examples/") + s.file, blocks::registry())
               : core::io::parseProject(QByteArray::fromStdString(s.json), "bench", blocks::registry());
    core::simulation::SimulationOptions o;
    o.relativeTolerance = rtol;
    o.absoluteTolerance = rtol * 1e-2;
    CountingSink sink;
    core::simulation::simulate(model, blocks::registry(), o, sink);
    const core::RunStats& st = sink.stats;
    const long restarts = st.reinits - 1;   // the first one is the start
    std::printf("%-34s %7ld %7ld %8ld %10.1f %12.1f %9.2f\n", s.name, st.steps, st.events, restarts,
                st.events ? double(st.steps) / double(st.events) : 0.0,
                restarts ? double(st.steps) / double(restarts) : 0.0, 1e3 * st.wallSeconds);
}

}   // namespace

int main(int argc, char** argv) {
    const double rtol = argc > 1 ? std::atof(argv[1]) : 1e-6;
    const std::string walls = R"("upper_bound":0.05,"lower_bound":-0.05,"upper_stiffness":2e4,"lower_stiffness":2e4,)"
                              R"("upper_damping":40,"lower_damping":40)";
    const std::vector<Scenario> scenarios = {
        {"rattle full_damped (1 s)", bodyOnStop(R"("model":"full_damped",)" + walls)},
        {"rattle full_undamped (1 s)", bodyOnStop(R"("model":"full_undamped",)" + walls)},
        {"rattle smooth (1 s)", bodyOnStop(R"("model":"smooth","transition_region":1e-4,)" + walls)},
        {"rattle restitution e=0.9 (1 s)",
         bodyOnStop(R"("model":"restitution","upper_bound":0.05,"lower_bound":-0.05,"restitution_coefficient":0.9)")},
        {"example rattling_mass", "", "rattling_mass.endstop"},
        {"example bouncing_mass", "", "bouncing_mass.endstop"},
    };
    std::printf("rtol %g\n%-34s %7s %7s %8s %10s %12s %9s\n", rtol, "scenario", "steps", "events", "restarts",
                "steps/event", "steps/restart", "wall ms");
    for (const Scenario& s : scenarios) run(s, rtol);
    return 0;
}
