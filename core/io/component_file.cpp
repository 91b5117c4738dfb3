// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/io/component_file.hpp"

#include "core/io/output_file.hpp"
#include "core/io/project_file.hpp"
#include "core/io/project_json.hpp"
#include "core/errors.hpp"
#include "core/model/flatten.hpp"
#include "core/text/quote.hpp"

#include <QFile>
#include <QJsonDocument>

#include <algorithm>
#include <functional>
#include <set>

namespace endstop::core::io {

namespace {

constexpr const char* kFormat = "endstop-component";

// Depth first from `root` through the instances in each body, leaves first.
template <class Find> std::vector<const model::SubsystemDef*> closure(const std::string& root, const Find& find) {
    std::vector<const model::SubsystemDef*> out;
    std::set<std::string> done, open;
    std::function<void(const std::string&)> visit = [&](const std::string& name) {
        if (done.count(name)) return;
        if (!open.insert(name).second) throw ModelError("subsystem \"" + name + "\" contains itself");
        const model::SubsystemDef* def = find(name);
        if (!def) throw ModelError("no subsystem named \"" + name + "\"");
        for (const model::BlockSpec& b : def->body.blocks())
            if (const std::string_view sub = model::subsystemOf(b.type); !sub.empty()) visit(std::string(sub));
        open.erase(name);
        done.insert(name);
        out.push_back(def);
    };
    visit(root);
    return out;
}

// A model holding the definitions and one instance of `root`, no model parameters: flattening
// it evaluates every expression the definitions hold as they would be once inserted.
void flattenAlone(const std::vector<const model::SubsystemDef*>& defs, const std::string& root,
                  const Registry& registry) {
    model::Model m;
    for (const model::SubsystemDef* d : defs) m.apply(model::addSubsystem(*d));
    model::BlockSpec probe;
    probe.name = "component";
    probe.type = std::string(model::kSubsystemPrefix) + root;
    m.apply(model::AddBlock{probe});
    (void)model::flatten(m, registry);
}

[[noreturn]] void fail(const QString& file, const std::string& path, const std::string& what) {
    throw FileFormatError(file.toStdString() + ": " + excerpt(path, 120) + ": " + excerpt(what, 400));
}

// The component's header checked; its subsystems as a project document for the project reader.
QJsonObject projectDocument(const QJsonObject& root, const QString& file, std::string& name) {
    if (root.value("format").toString() != kFormat)
        fail(file, "format", "expected \"endstop-component\" (is this an Endstop component file?)");
    for (const QString& key : root.keys())
        if (!QStringList{"format", "formatVersion", "generator", "component", "subsystems"}.contains(key))
            fail(file, key.toStdString(), "unknown key (a component holds \"component\" and \"subsystems\")");
    name = root.value("component").toString().toStdString();
    if (!root.value("component").isString() || !model::Model::validName(name))
        fail(file, "component", "expected the name of the subsystem definition the file holds");
    if (!root.value("subsystems").toObject().contains(QString::fromStdString(name)))
        fail(file, "subsystems." + name, "missing: expected the definition of component \"" + name + "\"");
    return QJsonObject{{"format", "endstop-project"},
                       {"formatVersion", root.value("formatVersion")},
                       {"subsystems", root.value("subsystems")}};
}

bool same(const model::SubsystemDef& a, const model::SubsystemDef& b) { return subsystemJson(a) == subsystemJson(b); }

// The instances inside `def` pointed at the names the insert gave their definitions.
void retarget(model::SubsystemDef& def, const std::map<std::string, std::string>& renamed) {
    std::vector<model::Edit> edits;
    for (const model::BlockSpec& b : def.body.blocks())
        if (const auto it = renamed.find(std::string(model::subsystemOf(b.type)));
            it != renamed.end() && it->second != it->first)
            edits.emplace_back(model::SetBlockType{b.name, std::string(model::kSubsystemPrefix) + it->second});
    for (const model::Edit& e : edits) def.body.apply(e);
}

}   // namespace

const model::SubsystemDef* Component::find(std::string_view defName) const {
    const auto it = std::find_if(definitions.begin(), definitions.end(),
                                 [&](const model::SubsystemDef& d) { return d.name == defName; });
    return it == definitions.end() ? nullptr : &*it;
}

std::vector<const model::SubsystemDef*> definitionsUsed(const model::Model& project, const std::string& defName) {
    return closure(defName, [&](const std::string& n) { return project.findSubsystem(n); });
}

QByteArray serializeComponent(const model::Model& project, const std::string& defName) {
    QJsonObject defs;
    for (const model::SubsystemDef* d : definitionsUsed(project, defName))
        defs[QString::fromStdString(d->name)] = subsystemJson(*d);
    const QJsonObject root{{"format", kFormat},
                           {"formatVersion", kFormatVersion},
                           {"generator", kGenerator},
                           {"component", QString::fromStdString(defName)},
                           {"subsystems", defs}};
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

void checkComponent(const model::Model& project, const std::string& defName, const Registry& registry) {
    const std::vector<const model::SubsystemDef*> defs = definitionsUsed(project, defName);
    try {
        flattenAlone(defs, defName, registry);
    } catch (const ModelError& e) {
        throw ModelError("subsystem \"" + defName + "\" cannot be saved as a component: " + e.what() +
                         ". A component carries no model parameters: its expressions may use only its mask parameters"
                         " (add the parameters it needs to its mask).");
    }
}

void saveComponent(const model::Model& project, const std::string& defName, const QString& path,
                   const Registry& registry) {
    checkComponent(project, defName, registry);
    writeFile(path, serializeComponent(project, defName));
}

Component parseComponent(const QByteArray& bytes, const QString& fileLabel, const Registry& registry) {
    const QJsonObject document = parseJsonObject(bytes, fileLabel);
    Component c;
    const QJsonObject project = projectDocument(document, fileLabel, c.name);
    const model::Model m = parseProject(QJsonDocument(project).toJson(QJsonDocument::Compact), fileLabel, registry);
    const std::vector<const model::SubsystemDef*> defs = definitionsUsed(m, c.name);
    try {
        flattenAlone(defs, c.name, registry);
    } catch (const ModelError& e) {
        fail(fileLabel, "subsystems." + c.name, e.what());
    }
    for (const model::SubsystemDef* d : defs) c.definitions.push_back(*d);
    return c;
}

Component loadComponent(const QString& path, const Registry& registry) {
    QFile f(path);
    if (!f.exists()) throw FileFormatError(path.toStdString() + ": no such file");
    if (!f.open(QIODevice::ReadOnly))
        throw FileFormatError(path.toStdString() + ": cannot read: " + f.errorString().toStdString());
    return parseComponent(f.readAll(), path, registry);
}

model::EditBatch insertComponent(const model::Model& project, const Component& component,
                                 const std::string& instanceName, double x, double y) {
    std::set<std::string> reserved;   // the component's own names: a fresh name must not take one
    for (const model::SubsystemDef& d : component.definitions) reserved.insert(d.name);
    std::map<std::string, std::string> renamed;   // component name -> name in the project
    std::set<std::string> added;
    model::EditBatch batch{{}, "insert component " + component.name};
    for (const model::SubsystemDef* original :
         closure(component.name, [&](const std::string& n) { return component.find(n); })) {
        model::SubsystemDef def = *original;
        retarget(def, renamed);
        for (int i = 1;; ++i) {
            const std::string name = i == 1 ? def.name : def.name + "_" + std::to_string(i);
            if (const model::SubsystemDef* existing = project.findSubsystem(name)) {
                if (!same(*existing, def)) continue;
                renamed[original->name] = name;   // reused
                break;
            }
            if ((i > 1 && reserved.count(name)) || added.count(name)) continue;
            renamed[original->name] = name;
            added.insert(name);
            def.name = name;
            batch.edits.emplace_back(model::addSubsystem(std::move(def)));
            break;
        }
    }
    model::BlockSpec instance;
    instance.name = instanceName;
    instance.type = std::string(model::kSubsystemPrefix) + renamed.at(component.name);
    instance.ui.x = x;
    instance.ui.y = y;
    batch.edits.emplace_back(model::AddBlock{instance});
    return batch;
}

}   // namespace endstop::core::io
