// SPDX-License-Identifier: GPL-3.0-or-later
// Bad project files for tst_flatten, one per rule of docs/file-format.md ("Parameters and
// subsystems"), each with the fragments its message must hold: the file, the JSON path and what
// is wrong. In a header of its own because moc does not parse raw string literals.
#pragma once

#include <QString>
#include <QStringList>

#include <string>
#include <vector>

namespace endstop::test {

struct BadFile {
    const char* name;
    QString json;
    QStringList fragments;
};

inline std::string v2(const std::string& body) {
    return R"({"format": "endstop-project", "formatVersion": 2, )" + body + "}";
}

inline std::vector<BadFile> badFiles() {
    std::vector<BadFile> out;
    struct Adder {
        std::vector<BadFile>& out;
        const char* name;
        QString json;
        Adder& operator<<(const QString& j) {
            json = j;
            return *this;
        }
        Adder& operator<<(const QStringList& f) {
            out.push_back({name, json, f});
            return *this;
        }
    };
    auto add = [&](const char* name) { return Adder{out, name, {}}; };
    const std::string stage =
        R"("subsystems": {"S": {"ports": [{"name": "A", "domain": "translational"}], "parameters": [{"name": "k", "value": "1 N/m"}],
                 "blocks": [{"name": "sp", "type": "translational.spring", "parameters": {"stiffness": "k"}}],
                 "connections": [["A", "sp.R"]]}})";
    auto file = [&](const std::string& params, const std::string& blocks, const std::string& more = {}) {
        return QString::fromStdString(
            v2(R"("parameters": [)" + params + "], " + stage + R"(, "blocks": [)" + blocks + "]" + more));
    };
    const std::string inst = R"({"name": "s1", "type": "subsystem:S"})";
    add("unknown name") << file(R"({"name": "a", "value": "2*b"})", inst)
                        << QStringList{"bad.endstop: parameters[0].value", "unknown name 'b'"};
    add("cycle") << file(R"({"name": "a", "value": "2*b"}, {"name": "b", "value": "a/2"})", inst)
                 << QStringList{"parameters[0].value", "cycle: a -> b -> a"};
    add("malformed") << file(R"({"name": "a", "value": "2*(3"})", inst)
                     << QStringList{"parameters[0].value", "expected ')'"};
    add("duplicate parameter") << file(R"({"name": "a", "value": "1"}, {"name": "a", "value": "2"})", inst)
                               << QStringList{"parameters[1].name", "duplicate parameter name \"a\""};
    add("dimension of a block parameter")
        << file(R"({"name": "a", "value": "2 kg"})",
                R"({"name": "sp2", "type": "translational.spring", "parameters": {"stiffness": "a"}})")
        << QStringList{"blocks[0].parameters.stiffness", "block 'sp2', parameter 'stiffness'",
                       "has dimension kg, expected kg/s^2"};
    add("dimension of an instance value")
        << file("", R"({"name": "s1", "type": "subsystem:S", "parameters": {"k": "3 m"}})")
        << QStringList{"blocks[0].parameters.k", "has dimension m, expected kg/s^2"};
    add("unknown instance parameter") << file("", R"({"name": "s1", "type": "subsystem:S", "parameters": {"q": 1}})")
                                      << QStringList{"blocks[0].parameters.q", "no parameter \"q\" (parameters: k)"};
    add("unknown subsystem") << file("", R"({"name": "s1", "type": "subsystem:T"})")
                             << QStringList{"blocks[0].type", "unknown subsystem \"T\""};
    add("port a subsystem does not have")
        << file("", inst + R"(, {"name": "m", "type": "translational.mass"})", R"(, "connections": [["m.M", "s1.B"]])")
        << QStringList{"connections[0][1]", "(subsystem S) has no port \"B\" (ports: A)"};
    add("port unconnected inside")
        << QString::fromStdString(
               v2(R"("subsystems": {"S": {"ports": [{"name": "A", "domain": "translational"}], "blocks": []}},
                                             "blocks": [{"name": "s1", "type": "subsystem:S"}])"))
        << QStringList{"subsystems.S", "port 'A' is not connected inside"};
    add("subsystem containing itself") << QString::fromStdString(v2(
                                              R"("subsystems": {"P": {"blocks": [{"name": "q", "type": "subsystem:Q"}]},
                                                            "Q": {"blocks": [{"name": "p", "type": "subsystem:P"}]}},
                                             "blocks": [{"name": "top", "type": "subsystem:P"}])"))
                                       << QStringList{"subsystems.P", "contains itself: P -> Q -> P"};
    add("bad port domain") << QString::fromStdString(
                                  v2(R"("subsystems": {"S": {"ports": [{"name": "A", "domain": "hydraulic"}]}})"))
                           << QStringList{"subsystems.S.ports[0].domain",
                                          "\"translational\", \"rotational\", \"signal_in\" or \"signal_out\""};
    add("unknown name inside a subsystem")
        << QString::fromStdString(v2(R"("subsystems": {"S": {"ports": [{"name": "A", "domain": "translational"}],
                 "blocks": [{"name": "sp", "type": "translational.spring", "parameters": {"stiffness": "2*kk"}}],
                 "connections": [["A", "sp.R"]]}}, "blocks": [{"name": "s1", "type": "subsystem:S"}])"))
        << QStringList{"blocks[0]", "block 's1.sp', parameter 'stiffness'", "unknown name 'kk'"};
    {   // 300 definitions, each holding the next: refused, never a stack overflow
        std::string defs;
        for (int i = 0; i < 300; ++i)
            defs += (i ? ", " : "") + std::string("\"D") + std::to_string(i) + "\": {\"blocks\": [" +
                    (i < 299 ? "{\"name\": \"x\", \"type\": \"subsystem:D" + std::to_string(i + 1) + "\"}" : "") + "]}";
        add("nested 300 deep") << QString::fromStdString(
                                      v2("\"subsystems\": {" + defs +
                                         R"(}, "blocks": [{"name": "top", "type": "subsystem:D0"}])"))
                               << QStringList{"subsystems nested more than 256 deep"};
    }
    {   // 40 levels of two instances each: 2^40 blocks, refused at the limit, in moments
        std::string defs;
        for (int i = 0; i < 40; ++i) {
            const std::string next = i < 39 ? "subsystem:E" + std::to_string(i + 1) : "translational.mass";
            defs += (i ? ", " : "") + std::string("\"E") + std::to_string(i) +
                    "\": {\"blocks\": [{\"name\": \"a\", \"type\": \"" + next + "\"}, {\"name\": \"b\", \"type\": \"" +
                    next + "\"}]}";
        }
        add("a billion blocks") << QString::fromStdString(
                                       v2("\"subsystems\": {" + defs +
                                          R"(}, "blocks": [{"name": "top", "type": "subsystem:E0"}])"))
                                << QStringList{"would have more than 200000 blocks"};
    }
    {   // a dependency chain of 1000 parameters
        std::string params;
        for (int i = 0; i < 1000; ++i)
            params += (i ? ", " : "") + std::string("{\"name\": \"p") + std::to_string(i) + "\", \"value\": \"" +
                      (i < 999 ? "p" + std::to_string(i + 1) + "+1" : std::string("1")) + "\"}";
        add("dependency chain 1000 long") << QString::fromStdString(v2("\"parameters\": [" + params + "]"))
                                          << QStringList{"parameters[", "more than 256 deep"};
    }
    return out;
}

}   // namespace endstop::test
