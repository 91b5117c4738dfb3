// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/document.hpp"

#include "core/model/flatten.hpp"

#include "core/errors.hpp"

#include <QFileInfo>
#include <QUndoCommand>
#include <QUndoStack>

namespace endstop::gui {

namespace {
template <class... F> struct Overload : F... { using F::operator()...; };
template <class... F> Overload(F...) -> Overload<F...>;
}   // namespace

// One undo step: an edit and its inverse. The edit was applied before the command was pushed, so
// the first redo() (called by QUndoStack::push) does nothing.
class EditCommand final : public QUndoCommand {
public:
    EditCommand(Document& doc, core::model::Edit redoEdit, core::model::Edit undoEdit, const QString& label)
        : QUndoCommand(label), m_doc(doc), m_redo(std::move(redoEdit)), m_undo(std::move(undoEdit)) {}

    void redo() override {
        if (m_first) {
            m_first = false;
            return;
        }
        m_undo = m_doc.m_model.apply(m_redo);
        m_doc.applied(m_redo);
    }
    void undo() override {
        m_redo = m_doc.m_model.apply(m_undo);
        m_doc.applied(m_undo);
    }

private:
    Document& m_doc;
    core::model::Edit m_redo, m_undo;
    bool m_first = true;
};

Document::Document(const core::Registry& registry, QObject* parent)
    : QObject(parent), m_registry(registry), m_undo(new QUndoStack(this)) {
    connect(m_undo, &QUndoStack::cleanChanged, this,
            [this](bool clean) { Q_EMIT dirtyChanged(!clean || m_forcedDirty); });
}

Document::~Document() = default;

std::optional<QString> Document::apply(const core::model::Edit& edit, const QString& label) {
    core::model::Edit inverse = core::model::Edit(core::model::EditBatch{});
    try {
        inverse = m_model.apply(edit);
    } catch (const core::Error& e) {
        return QString::fromStdString(e.what());
    }
    applied(edit);
    m_undo->push(new EditCommand(*this, edit, std::move(inverse), label));
    return std::nullopt;
}

std::optional<QString> Document::settle(const core::model::Edit& edit) {
    if (!edit.cosmetic()) return QStringLiteral("not a layout edit");
    try {
        m_model.apply(edit);
    } catch (const core::Error& e) {
        return QString::fromStdString(e.what());
    }
    return std::nullopt;
}

void Document::applied(const core::model::Edit& edit) {
    dispatch(edit);
    if (!edit.cosmetic()) Q_EMIT structureChanged();
}

void Document::dispatch(const core::model::Edit& edit) {
    std::visit(
        Overload{
            [&](const core::model::AddBlock& e) { Q_EMIT blockAdded(QString::fromStdString(e.block.name)); },
            [&](const core::model::RemoveBlock& e) { Q_EMIT blockRemoved(QString::fromStdString(e.name)); },
            [&](const core::model::Connect& e) { Q_EMIT connectionAdded(e.connection); },
            [&](const core::model::Disconnect& e) { Q_EMIT connectionRemoved(e.connection); },
            [&](const core::model::SetParameter& e) { Q_EMIT blockParamsChanged(QString::fromStdString(e.block)); },
            [&](const core::model::RenameBlock& e) {
                Q_EMIT blockRenamed(QString::fromStdString(e.from), QString::fromStdString(e.to));
            },
            [&](const core::model::MoveBlock& e) { Q_EMIT blockUiChanged(QString::fromStdString(e.name)); },
            [&](const core::model::SetBlockUi& e) { Q_EMIT blockUiChanged(QString::fromStdString(e.name)); },
            [&](const core::model::SetSimulation&) { Q_EMIT simulationChanged(); },
            [&](const core::model::SetPlots&) { Q_EMIT plotsChanged(); },
            [&](const core::model::EditBatch& b) {
                for (const core::model::Edit& e : b.edits) dispatch(e);
            },
            [&](const core::model::SetModelParameter& e) { Q_EMIT parametersChanged(QString::fromStdString(e.name)); },
            [&](const core::model::AddSubsystem& e) { Q_EMIT subsystemChanged(QString::fromStdString(e.def->name)); },
            [&](const core::model::RemoveSubsystem& e) { Q_EMIT subsystemChanged(QString::fromStdString(e.name)); },
            [&](const core::model::InSubsystem& e) { Q_EMIT subsystemChanged(QString::fromStdString(e.name)); },
            [&](const core::model::SetBlockType& e) { Q_EMIT blockParamsChanged(QString::fromStdString(e.name)); },
        },
        edit.value);
}

void Document::reset(core::model::Model model, const QString& path) {
    m_model = std::move(model);
    m_forcedDirty = false;
    m_undo->clear();
    m_undo->setClean();
    m_path = path;
    Q_EMIT modelReset();
    Q_EMIT structureChanged();
    Q_EMIT pathChanged();
    Q_EMIT dirtyChanged(false);
}

void Document::setPath(const QString& path) {
    m_path = path;
    Q_EMIT pathChanged();
}

QString Document::displayName() const {
    return m_path.isEmpty() ? QStringLiteral("untitled") : QFileInfo(m_path).fileName();
}

bool Document::isDirty() const { return m_forcedDirty || !m_undo->isClean(); }

void Document::markClean() {
    m_forcedDirty = false;
    m_undo->setClean();
    Q_EMIT dirtyChanged(false);
}

void Document::markDirty() {
    m_forcedDirty = true;
    Q_EMIT dirtyChanged(true);
}

core::ParamValues Document::currentParams(const core::model::BlockSpec& spec) const {
    const core::BlockType* type = m_registry.find(spec.type);
    if (!type) return {};
    core::model::BlockSpec evaluated = spec;
    evaluated.params = core::model::evaluatedParams(m_model, spec, m_registry);
    return core::model::currentParams(evaluated, m_registry);
}

std::optional<core::BlockDescription> Document::describe(const core::model::BlockSpec& spec) const {
    if (!m_registry.find(spec.type)) return std::nullopt;
    try {
        return m_registry.describe(spec.type, currentParams(spec));
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

}   // namespace endstop::gui
