// SPDX-License-Identifier: GPL-3.0-or-later
// The level the canvas shows (the model, or a subsystem definition's body reached through a path
// of instances), how its edits reach the model (InSubsystem below the top), the shapes of
// instances and port blocks, and the subsystem commands: Create Subsystem, Expand, Make Unique.
#include "core/errors.hpp"
#include "core/model/flatten.hpp"
#include "core/model/subsystem_ops.hpp"
#include "gui/block_item.hpp"
#include "gui/diagram_scene.hpp"
#include "gui/document.hpp"

#include <QFont>
#include <QFontMetricsF>

namespace endstop::gui {

namespace {
QString qs(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

// "Subsystem1"/"subsystem1", the first pair free in the project and in the level
std::pair<std::string, std::string> freshNames(const core::model::Model& top, const core::model::Model& level) {
    for (int i = 1;; ++i) {
        const std::string def = "Subsystem" + std::to_string(i), inst = "subsystem" + std::to_string(i);
        if (!top.findSubsystem(def) && !level.find(inst)) return {def, inst};
    }
}
}   // namespace

const core::model::Model* DiagramScene::resolve(const QStringList& path, QString* definition) const {
    const core::model::Model& top = m_doc.model();
    const core::model::Model* level = &top;
    for (const QString& name : path) {
        const core::model::BlockSpec* spec = level->find(name.toStdString());
        const core::model::SubsystemDef* def = spec ? top.findSubsystem(core::model::subsystemOf(spec->type)) : nullptr;
        if (!def) return nullptr;
        if (definition) *definition = qs(def->name);
        level = &def->body;
    }
    if (definition && path.isEmpty()) definition->clear();
    return level;
}

QString DiagramScene::levelDefinition() const {
    QString def;
    resolve(m_level, &def);
    return def;
}

const core::model::Model& DiagramScene::levelModel() const {
    const core::model::Model* level = resolve(m_level);
    return level ? *level : m_doc.model();
}

bool DiagramScene::openLevel(const QStringList& path) {
    if (!resolve(path)) return false;
    if (path != m_level) {
        m_level = path;
        rebuild();
    }
    Q_EMIT levelChanged();
    return true;
}

bool DiagramScene::openInstance(const QString& instance) {
    if (!isInstance(instance)) return false;
    return openLevel(m_level + QStringList{instance});
}

bool DiagramScene::isInstance(const QString& block) const {
    const core::model::BlockSpec* spec = levelModel().find(block.toStdString());
    return spec && !core::model::subsystemOf(spec->type).empty();
}

void DiagramScene::followModel() {
    QStringList path = m_level;
    while (!path.isEmpty() && !resolve(path)) path.removeLast();
    if (path != m_level) openLevel(path);
}

core::model::Edit DiagramScene::forLevel(const core::model::Edit& edit) const {
    const QString def = levelDefinition();
    if (def.isEmpty()) return edit;
    const auto wrap = [&def](const core::model::Edit& e) -> core::model::Edit {
        if (std::holds_alternative<core::model::AddSubsystem>(e.value) ||
            std::holds_alternative<core::model::RemoveSubsystem>(e.value))
            return e;
        return core::model::InSubsystem{def.toStdString(), {e}};
    };
    if (const auto* batch = std::get_if<core::model::EditBatch>(&edit.value)) {
        core::model::EditBatch wrapped{{}, batch->label};
        for (const core::model::Edit& e : batch->edits) wrapped.edits.push_back(wrap(e));
        return wrapped;
    }
    return wrap(edit);
}

std::optional<QString> DiagramScene::applyEdit(const core::model::Edit& edit, const QString& label) {
    return m_doc.apply(forLevel(edit), label);
}

BlockShape DiagramScene::shapeOf(const core::model::BlockSpec& spec) const {
    const QString type = QString::fromStdString(spec.type);
    if (core::model::isPortType(spec.type)) return portBlockShape(core::model::innerPort(spec), type);
    if (const std::string_view sub = core::model::subsystemOf(spec.type); !sub.empty()) {
        const core::model::SubsystemDef* def = m_doc.model().findSubsystem(sub);
        if (!def) return unknownBlockShape(type);
        QFont caption;
        caption.setPixelSize(11);
        caption.setBold(true);
        const double width = QFontMetricsF(caption).horizontalAdvance(qs(sub)) + 16;   // the name, on one line
        BlockShape shape = layoutPorts(core::model::subsystemPorts(*def), tr("Subsystem %1").arg(qs(sub)),
                                       QStringLiteral("subsystem"), width);
        shape.caption = qs(sub);
        shape.help = tr("An instance of subsystem %1: double-click to open it, Edit > Expand Subsystem to dissolve it.")
                         .arg(qs(sub));
        return shape;
    }
    const std::optional<core::BlockDescription> block = m_doc.describe(spec);
    return block ? layoutBlock(*block) : unknownBlockShape(type);
}

bool DiagramScene::createSubsystem() {
    const QStringList selected = selectedBlockNames();
    if (selected.isEmpty()) {
        status(tr("Create Subsystem: select the blocks to group first"));
        return false;
    }
    const auto [def, inst] = freshNames(m_doc.model(), levelModel());
    std::vector<std::string> names;
    for (const QString& n : selected) names.push_back(n.toStdString());
    try {
        const core::model::EditBatch batch =
            core::model::groupIntoSubsystem(levelModel(), m_doc.registry(), names, def, inst, &m_doc.model());
        if (const auto error = applyEdit(batch, tr("Create Subsystem %1").arg(qs(def)))) {
            status(*error);
            return false;
        }
    } catch (const core::Error& e) {
        status(qs(e.what()));
        return false;
    }
    selectBlocks({qs(inst)});
    status(tr("Created subsystem %1 (instance %2); double-click it to open it").arg(qs(def), qs(inst)));
    return true;
}

bool DiagramScene::expandSubsystem(const QString& instance) {
    if (!isInstance(instance)) {
        status(tr("Expand Subsystem: select one subsystem instance"));
        return false;
    }
    try {
        const core::model::EditBatch batch =
            core::model::expandInstance(levelModel(), m_doc.registry(), instance.toStdString(), &m_doc.model());
        QStringList added;
        for (const core::model::Edit& e : batch.edits)
            if (const auto* add = std::get_if<core::model::AddBlock>(&e.value)) added << qs(add->block.name);
        if (const auto error = applyEdit(batch, tr("Expand Subsystem %1").arg(instance))) {
            status(*error);
            return false;
        }
        selectBlocks(added);
    } catch (const core::Error& e) {
        status(qs(e.what()));
        return false;
    }
    return true;
}

bool DiagramScene::makeUnique(const QString& instance) {
    if (!isInstance(instance)) {
        status(tr("Make Unique: select one subsystem instance"));
        return false;
    }
    try {
        const core::model::EditBatch batch =
            core::model::makeUnique(levelModel(), instance.toStdString(), &m_doc.model());
        if (const auto error = applyEdit(batch, tr("Make %1 Unique").arg(instance))) {
            status(*error);
            return false;
        }
    } catch (const core::Error& e) {
        status(qs(e.what()));
        return false;
    }
    status(tr("%1 now has a definition of its own").arg(instance));
    return true;
}

}   // namespace endstop::gui
