// SPDX-License-Identifier: GPL-3.0-or-later
// endstop-batch run | validate | variables | blocks
#include "app/batch/cli.hpp"
#include "app/batch/interrupt.hpp"
#include "app/batch/progress.hpp"

#include "blocks/registry.hpp"
#include "core/errors.hpp"
#include "core/results/csv_sink.hpp"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

#include <iomanip>
#include <iostream>
#include <sstream>
#include <utility>

namespace endstop::batch {

namespace {

// Keeps the last row's first columns for the summary printed without --out (a 10,000-mass chain
// has 200,000 columns: copying them all would be the largest allocation of the run).
class LastRow : public core::ResultSink {
public:
    static constexpr std::size_t kShown = 12;
    void omitted(std::size_t n) override { left = n; }
    void begin(const std::vector<core::Column>& c) override {
        total = c.size() + left;
        columns.assign(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(std::min(kShown, c.size())));
    }
    void row(double t, std::span<const double> v) override {
        time = t;
        values.assign(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(std::min(kShown, v.size())));
    }
    void end(const core::RunStats& s) override { stats = s; }   // also after a failure
    bool wantsEveryRow() const override { return false; }
    std::size_t columnsRead() const override { return kShown; }
    std::vector<core::Column> columns;
    std::size_t total = 0, left = 0;
    std::vector<double> values;
    double time = 0.0;
    core::RunStats stats;
};

void printSummary(std::ostream& out, const LastRow& last, const core::RunStats& s) {
    out << "simulated to t = " << core::formatNumber(last.time) << " s: " << s.steps << " steps, " << s.events
        << " events, " << core::formatNumber(s.wallSeconds) << " s wall (" << s.unknowns << " unknowns, "
        << s.linearSolver << ")\n";
    const std::size_t shown = std::min(last.columns.size(), last.values.size());
    for (std::size_t i = 0; i < shown; ++i)
        out << "  " << std::left << std::setw(28) << last.columns[i].name << " " << std::setw(14)
            << core::formatNumber(last.values[i]) << " " << last.columns[i].unit << "\n";
    if (shown < last.total) out << "  ... " << last.total - shown << " more (use --out)\n";
    out << "no CSV written (use --out FILE or --out -)\n";
}

std::string describeRange(const core::ParamDesc& d) {
    std::string lo, hi;
    const std::string u = d.unit.symbol.empty() ? "" : " " + core::Unit::si(d.unit.dimension).display();
    if (std::isfinite(d.min)) lo = (d.minExclusive ? "> " : ">= ") + core::formatNumber(d.min) + u;
    if (std::isfinite(d.max)) hi = (d.maxExclusive ? "< " : "<= ") + core::formatNumber(d.max) + u;
    return lo.empty() ? hi : (hi.empty() ? lo : lo + ", " + hi);
}

}   // namespace

int runCommand(Args& args) {
    const auto out = args.value("--out");
    const auto events = args.value("--events");
    const auto sets = args.values("--set");
    const bool stats = args.flag("--stats");
    core::simulation::SimulationOptions options = simulationOptions(args);
    Progress progress(args);
    const std::string path = args.next("MODEL.endstop after 'run'");
    args.done();
    for (const auto& [flag, value] : {std::pair{"--out", out}, std::pair{"--events", events}})
        if (value && value->empty())
            throw UsageError(std::string("flag ") + flag +
                             ": expected a file name or - (standard output), got an empty name");

    core::model::Model model = loadModel(path);
    applySets(model, sets);
    checkSettings(model, options, path);
    options.onWarning = [&path](const core::Diagnostic& d) { std::cerr << path << ": warning: " << d.text() << "\n"; };

    std::unique_ptr<core::CsvSink> csv;
    try {
        csv = std::make_unique<core::CsvSink>(out.value_or(""), events.value_or(""));
    } catch (const core::IoError& e) {
        const bool eventsFailed = events && std::string(e.what()).find("'" + *events + "'") != std::string::npos;
        throw UsageError((eventsFailed ? "--events " : "--out ") + std::string(e.what()));
    }
    LastRow last;
    core::TeeSink tee({csv.get(), &last});
    std::ostream& info = out && *out == "-" ? std::cerr : std::cout;
    const InterruptGuard interrupt;
    core::solver::RunControl control;
    control.cancel = interrupt.flag();
    if (progress.enabled()) {
        const double stopTime = core::simulation::resolveSettings(model.simulation(), options).stopTime;
        control.progress = [&progress, stopTime](double t, const core::RunStats& s) {
            progress.run(t, stopTime, s.steps, s.events);
        };
    }
    int code = kOk;
    try {
        core::simulation::simulate(std::move(model), blocks::registry(), options, tee, control);
    } catch (const core::SolverError& e) {   // also a run limit: the rows so far are written
        std::cerr << "endstop-batch: " << path << ": " << e.what() << "\n";
        code = kSimulationFailed;
    } catch (const core::IoError& e) {   // a full disk: the previous file is left as it was
        std::cerr << "endstop-batch: " << e.what() << " (a previous file of that name is unchanged)\n";
        return kSimulationFailed;
    } catch (const core::Error& e) {
        throw UsageError(path + ": " + e.what());
    }
    progress.finish();
    if (interrupt.signal() != 0) {
        std::cerr << "endstop-batch: " << path << ": interrupted by " << interrupt.signalName()
                  << " at t = " << core::formatNumber(last.stats.finalTime) << " s"
                  << (out ? "; the rows computed so far were written" : "") << "\n";
        if (stats) info << last.stats.toJson() << "\n";
        return 128 + interrupt.signal();
    }
    if (code == kOk && !out) printSummary(info, last, last.stats);
    if (stats) info << last.stats.toJson() << "\n";
    if (!info.flush()) {   // a summary into a full device is a failure too
        std::cerr << "endstop-batch: cannot write to standard output\n";
        return kSimulationFailed;
    }
    return code;
}

int validateCommand(Args& args) {
    const std::string path = args.next("MODEL.endstop after 'validate'");
    args.done();
    core::model::Model model = loadModel(path);
    const std::size_t blockCount = model.blocks().size(), connectionCount = model.connections().size();
    const core::Diagnostics diags = core::simulation::validateModel(std::move(model), blocks::registry());
    for (const core::Diagnostic& d : diags)
        (d.severity == core::Severity::Error ? std::cerr : std::cout)
            << path << ": " << core::toString(d.severity) << ": " << d.text() << "\n";
    if (core::hasErrors(diags)) return kBadInput;
    std::cout << path << ": ok (" << blockCount << " blocks, " << connectionCount << " connections)\n";
    return kOk;
}

int variablesCommand(Args& args) {
    const bool json = args.flag("--json");
    const std::string path = args.next("MODEL.endstop after 'variables'");
    args.done();
    const core::model::Model model = loadModel(path);
    if (json) {   // for scripts: [{"name", "unit" (SI, "" when dimensionless), "description", "block", "variable"}]
        QJsonArray list;
        for (const core::Column& c : core::simulation::recordableVariables(model, blocks::registry()))
            list.append(QJsonObject{{"name", QString::fromStdString(c.name)},
                                    {"unit", QString::fromStdString(c.unit)},
                                    {"description", QString::fromStdString(c.label)},
                                    {"block", QString::fromStdString(c.block)},
                                    {"variable", QString::fromStdString(c.var)}});
        std::cout << QJsonDocument(list).toJson(QJsonDocument::Indented).toStdString() << std::flush;
        return std::cout ? kOk : kSimulationFailed;
    }
    for (const core::Column& c : core::simulation::recordableVariables(model, blocks::registry()))
        std::cout << std::left << std::setw(30) << c.name << " " << std::setw(10) << c.unit << " " << c.label << "\n";
    return kOk;
}

int blocksCommand(Args& args) {
    const bool markdown = args.flag("--markdown");
    args.done();
    for (const core::BlockType& t : blocks::registry().types()) {
        const core::BlockDescription b = blocks::registry().describe(t.info.typeId);
        if (markdown) {
            std::cout << "## " << t.info.title << " (`" << t.info.typeId << "`)\n\n" << t.info.help << "\n\n";
            std::cout << "Ports: ";
            for (std::size_t i = 0; i < b.ports.size(); ++i) {
                const core::PortDesc& p = b.ports[i];
                const char* kind = p.kind == core::PortKind::Conserving ? core::toString(p.domain)
                                   : p.kind == core::PortKind::Input    ? "input"
                                                                        : "output";
                std::cout << (i ? ", " : "") << "`" << p.name << "` (" << kind << (p.visibleWhen ? ", conditional" : "")
                          << ")";
            }
            std::cout << "\n\n";
            if (!b.params.empty()) {
                std::cout << "| key | label | unit | default | range | shown when |\n|---|---|---|---|---|---|\n";
                for (const core::ParamDesc& d : b.params) {
                    std::string when;
                    if (d.visibleWhen) {
                        when = d.visibleWhen->param + " ∈ {";
                        for (std::size_t i = 0; i < d.visibleWhen->values.size(); ++i)
                            when += (i ? ", " : "") + d.visibleWhen->values[i];
                        when += "}";
                    }
                    std::string range = describeRange(d);
                    if (d.type == core::ParamType::Choice)
                        for (const auto& c : d.choices) range += (range.empty() ? "" : ", ") + ("`" + c.key + "`");
                    std::cout << "| `" << d.key << "` | " << d.label << " | " << d.unit.display() << " | "
                              << core::toString(d.defaultValue) << " | " << range << " | " << when << " |\n";
                }
                std::cout << "\n";
            }
            std::cout << "Recorded: ";
            for (std::size_t i = 0; i < b.recorded.size(); ++i) {
                const core::VarDesc& v = b.recorded[i];
                std::cout << (i ? ", " : "") << "`" << v.name << "` (" << core::Unit::si(v.unit.dimension).display()
                          << ")";
            }
            std::cout << "\n\n";
            continue;
        }
        std::cout << std::left << std::setw(34) << t.info.typeId << " " << t.info.title << "\n";
    }
    return kOk;
}

}   // namespace endstop::batch
