// SPDX-License-Identifier: GPL-3.0-or-later
// A seeded mutation fuzzer for everything that reads user text (docs/reliability.md): project
// files (loader, validation, save round trip, a short bounded run, as drawn or reduced at random),
// unit expressions and --set assignments. Inputs start from a corpus (the bundled examples and
// test models, given as directories) and are mutated deterministically from --seed: byte flips,
// insertions, deletions, duplicated spans, and tokens that once broke something (deep
// parentheses, ^257, 1e300, 5e-324).
//
// A refused input must be refused with one of the project's errors (core::Error, UnitError); any
// other exception, a round trip that changes the bytes, a current file that the loader reads
// otherwise than one Qt DOM of the whole file does (another model or message), or a crash (which
// the sanitizer build turns into a report) is a finding: the input is written to --crashes and
// the exit code is 1.
// Built in every configuration; CI runs it under ASan/UBSan for a fixed time.
//   fuzz_inputs --seconds 60 --seed 1 --crashes DIR CORPUS_DIR...
#include "blocks/registry.hpp"
#include "core/io/overrides.hpp"
#include "core/io/project_file.hpp"
#include "core/io/project_reader.hpp"
#include "core/errors.hpp"
#include "core/simulation/simulate.hpp"
#include "core/units/unit.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace endstop;

namespace {

const std::vector<std::string> kTokens = {"(",
                                          ")",
                                          "[",
                                          "]",
                                          "{",
                                          "}",
                                          "\"",
                                          ",",
                                          ":",
                                          "^257",
                                          "^-99999999999",
                                          "^24",
                                          "1e308",
                                          "-1e308",
                                          "5e-324",
                                          "1e300",
                                          "-1",
                                          "0",
                                          "null",
                                          "true",
                                          "[]",
                                          "{}",
                                          " kg",
                                          " mm^2",
                                          " N*m/deg",
                                          "/",
                                          "*",
                                          " rpm",
                                          "\"restitution\"",
                                          "\"smooth\"",
                                          "\"formatVersion\": 1e300",
                                          "\"typeVersion\": 4294967297",
                                          "\\u0000",
                                          "\xC2\xB7",
                                          "\xC2\xB5m",
                                          "\xFF",
                                          std::string(200, '('),
                                          std::string(200, ')'),
                                          std::string(2000, '['),
                                          "\"output_interval\": 5e-324",
                                          "\"max_step\": 1e-300",
                                          "\"stop_time\": 1e300"};

class Mutator {
public:
    explicit Mutator(unsigned seed) : m_rng(seed) {}

    std::string mutate(std::string s) {
        const int n = 1 + pick(4);
        for (int i = 0; i < n; ++i) {
            const std::size_t at = s.empty() ? 0 : static_cast<std::size_t>(pick(static_cast<int>(s.size())));
            switch (pick(7)) {
                case 0:
                    if (!s.empty()) s[at] = static_cast<char>(s[at] ^ (1 << pick(8)));
                    break;
                case 1:
                    s.insert(at, 1, static_cast<char>(pick(256)));
                    break;
                case 2:
                    s.erase(at, static_cast<std::size_t>(pick(16)));
                    break;
                case 3:
                    s.insert(at, s.substr(at, static_cast<std::size_t>(pick(64))));
                    break;
                case 4:
                case 5:
                    s.insert(at, kTokens[static_cast<std::size_t>(pick(static_cast<int>(kTokens.size())))]);
                    break;
                default:
                    replaceNumber(s, at);
                    break;
            }
        }
        return s;
    }

    int pick(int n) { return n <= 0 ? 0 : std::uniform_int_distribution<int>(0, n - 1)(m_rng); }

private:
    // the number nearest after `at` becomes an extreme one
    void replaceNumber(std::string& s, std::size_t at) {
        const std::size_t b = s.find_first_of("0123456789", at);
        if (b == std::string::npos) return;
        const std::size_t e = s.find_first_not_of("0123456789.e-+", b);
        static const std::vector<std::string> extremes = {"0",  "-0",         "1e308",  "5e-324",
                                                          "-1", "2147483648", "1e-300", "9e99999"};
        s.replace(b, e == std::string::npos ? std::string::npos : e - b,
                  extremes[static_cast<std::size_t>(pick(static_cast<int>(extremes.size())))]);
    }
    std::mt19937 m_rng;
};

struct Tally {
    std::map<std::string, long> classes;
    long findings = 0;
};

// A current file read from one Qt DOM of it, as the loader reads what its outline does not take
// (core/io/project_file.cpp): the model's bytes, or the error's message.
std::optional<std::string> wholeRead(const QByteArray& bytes, std::string& message) {
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject() ||
        doc.object().value("format") != QJsonValue("endstop-project") ||
        doc.object().value("formatVersion") != QJsonValue(core::io::kFormatVersion))
        return std::nullopt;   // not a current file: the loader reads it whole anyway
    try {
        return core::io::serializeProject(core::io::readProject(doc.object(), "fuzz.endstop", blocks::registry()))
            .toStdString();
    } catch (const core::Error& e) {
        message = e.what();
        return std::string();
    }
}

// One project-file case, run as drawn or through the reduction stage (docs/engine.md,
// "Reduction"); returns its class, or throws a finding.
std::string projectCase(const std::string& text, bool reduce) {
    const QByteArray bytes = QByteArray::fromStdString(text);
    core::model::Model m;
    std::string message, wholeMessage;
    try {
        m = core::io::parseProject(bytes, "fuzz.endstop", blocks::registry());
    } catch (const core::Error& e) {
        message = e.what();
    }
    // the outlined read (simdjson's parse, the common shapes taken in directly) must give what the
    // whole file's DOM gives: the same model, or the same message
    if (const std::optional<std::string> whole = wholeRead(bytes, wholeMessage)) {
        if (message != wholeMessage)
            throw std::logic_error(
                "the loader and the whole-file read disagree: " + (message.empty() ? "loaded" : message) + " / " +
                (wholeMessage.empty() ? "loaded" : wholeMessage));
        if (message.empty() && core::io::serializeProject(m).toStdString() != *whole)
            throw std::logic_error("the loader and the whole-file read give different models");
    }
    if (!message.empty()) return "refused by the loader";
    const QByteArray saved = core::io::serializeProject(m);
    if (core::io::serializeProject(core::io::parseProject(saved, "fuzz.endstop", blocks::registry())) != saved)
        throw std::logic_error("save, load and save again changed the bytes");
    if (core::hasErrors(core::simulation::validateModel(m, blocks::registry()))) return "loaded, refused by validation";
    core::simulation::SimulationOptions o;
    o.stopTime = std::min(m.simulation().stopTime, 0.05);
    o.maxSteps = 20000;
    o.maxWallSeconds = 0.5;
    o.reduce = reduce;
    core::MemorySink sink;
    try {
        core::simulation::simulate(m, blocks::registry(), o, sink);
    } catch (const core::RunLimitError&) {
        return reduce ? "ran into a run limit, reduced" : "ran into a run limit";
    } catch (const core::SolverError&) {
        return reduce ? "simulation failed with a message, reduced" : "simulation failed with a message";
    } catch (const core::Error&) {
        return "refused before the run";
    }
    return reduce ? "simulated, reduced" : "simulated";
}

std::string unitCase(Mutator& mut) {
    std::string text = "1";
    const int n = 1 + mut.pick(12);
    for (int i = 0; i < n; ++i) text += kTokens[static_cast<std::size_t>(mut.pick(static_cast<int>(kTokens.size())))];
    text = mut.mutate(text);
    try {
        core::parseQuantity(text);
        return "unit parsed";
    } catch (const core::UnitError& e) {
        if (std::string(e.what()).size() > 400) throw std::logic_error("a unit message longer than 400 characters");
        return "unit refused";
    }
}

std::string setCase(Mutator& mut, const core::model::Model& m, const std::string& seed) {
    try {
        core::model::Model copy = m;
        copy.apply(core::io::parseAssignment(copy, blocks::registry(), mut.mutate(seed)));
        return "--set accepted";
    } catch (const core::Error&) {
        return "--set refused";
    }
}

void saveFinding(const QString& dir, long index, const std::string& input) {
    if (dir.isEmpty()) return;
    QDir().mkpath(dir);
    QFile f(QDir(dir).filePath(QString("finding_%1.txt").arg(index)));
    if (f.open(QIODevice::WriteOnly)) f.write(input.data(), static_cast<qint64>(input.size()));
}

}   // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    double seconds = 10;
    unsigned seed = 1;
    QString crashes;
    QStringList corpusDirs;
    const QStringList args = app.arguments().mid(1);
    for (qsizetype i = 0; i < args.size(); ++i) {
        if (args[i] == "--seconds" && i + 1 < args.size())
            seconds = args[++i].toDouble();
        else if (args[i] == "--seed" && i + 1 < args.size())
            seed = args[++i].toUInt();
        else if (args[i] == "--crashes" && i + 1 < args.size())
            crashes = args[++i];
        else
            corpusDirs << args[i];
    }
    std::vector<std::string> corpus;
    for (const QString& d : corpusDirs)
        for (QDirIterator it(d, {"*.endstop"}, QDir::Files, QDirIterator::Subdirectories); it.hasNext();) {
            QFile f(it.next());
            if (f.open(QIODevice::ReadOnly)) corpus.push_back(f.readAll().toStdString());
        }
    if (corpus.empty()) {
        std::fprintf(stderr, "fuzz_inputs: no *.endstop files in the corpus directories given\n");
        return 2;
    }
    const core::model::Model base =
        core::io::parseProject(QByteArray::fromStdString(corpus.front()), "seed", blocks::registry());
    const std::string setSeed = base.blocks().empty() ? "x.y=1" : base.blocks().front().name + ".mass=2 kg";

    Mutator mut(seed);
    Tally tally;
    long cases = 0;
    const auto start = std::chrono::steady_clock::now();
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) {
        const int kind = mut.pick(10);
        std::string input;
        const char* engine = "";   // a project case's: said with a finding, so that it can be rerun so
        try {
            if (kind < 6) {
                input = mut.mutate(corpus[static_cast<std::size_t>(mut.pick(static_cast<int>(corpus.size())))]);
                const bool reduce = mut.pick(2) == 1;
                engine = reduce ? " (run reduced)" : " (run as drawn)";
                ++tally.classes[projectCase(input, reduce)];
            } else if (kind < 9) {
                ++tally.classes[unitCase(mut)];
            } else {
                ++tally.classes[setCase(mut, base, setSeed)];
            }
        } catch (const std::exception& e) {   // not one of ours: a finding
            ++tally.findings;
            std::fprintf(stderr, "fuzz_inputs: finding %ld (case %ld%s): %s\n", tally.findings, cases, engine,
                         e.what());
            saveFinding(crashes, tally.findings, input);
        }
        ++cases;
    }
    std::printf("fuzz_inputs: %ld cases in %.0f s (seed %u, %zu corpus files)\n", cases, seconds, seed, corpus.size());
    for (const auto& [what, n] : tally.classes) std::printf("  %-42s %ld\n", what.c_str(), n);
    std::printf("  %-42s %ld\n", "findings", tally.findings);
    return tally.findings == 0 ? 0 : 1;
}
