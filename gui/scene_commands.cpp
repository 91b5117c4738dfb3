// SPDX-License-Identifier: GPL-3.0-or-later
// Canvas commands as core Edits, one undo step each: add, delete, rotate, flip, rename, and the
// clipboard (a fragment of a project file: the selected blocks and the wires between them).
#include "core/io/project_file.hpp"
#include "core/errors.hpp"
#include "gui/block_item.hpp"
#include "gui/diagram_scene.hpp"
#include "gui/document.hpp"

#include <QMimeData>

#include <cmath>
#include <map>

namespace endstop::gui {

namespace {
QString qs(const std::string& s) { return QString::fromStdString(s); }
double snap(double x) { return std::round(x / kGrid) * kGrid; }
}   // namespace

bool DiagramScene::addBlock(const QString& typeId, QPointF pos) {
    const core::BlockType* type = m_doc.registry().find(typeId.toStdString());
    if (!type) {
        status(tr("Unknown block type %1").arg(typeId));
        return false;
    }
    core::model::BlockSpec spec;
    spec.type = type->info.typeId;
    spec.typeVersion = type->info.typeVersion;
    spec.name = levelModel().uniqueName(typeId.section('.', -1).toStdString() + "1");
    spec.ui.x = snap(pos.x());
    spec.ui.y = snap(pos.y());
    const QPointF free = freeOffset({footprint(spec)}, QPointF());
    spec.ui.x += free.x();
    spec.ui.y += free.y();
    if (const auto error = applyEdit(core::model::AddBlock{spec}, tr("Add %1").arg(qs(type->info.title)))) {
        status(*error);
        return false;
    }
    selectBlocks({qs(spec.name)});
    return true;
}

void DiagramScene::deleteSelection() {
    const QStringList blocks = selectedBlockNames();
    core::model::EditBatch batch{{}, "delete"};
    for (const core::model::Connection& c : selectedConnections())
        if (!blocks.contains(qs(c.a.block)) && !blocks.contains(qs(c.b.block)))
            batch.edits.emplace_back(core::model::Disconnect{c});
    for (const QString& b : blocks) batch.edits.emplace_back(core::model::RemoveBlock{b.toStdString()});
    if (batch.edits.empty()) return;
    if (const auto error = applyEdit(batch, tr("Delete"))) status(*error);
}

void DiagramScene::rotateSelection(int degrees) {
    core::model::EditBatch batch{{}, "rotate"};
    for (const QString& name : selectedBlockNames()) {
        core::model::BlockUi ui = levelModel().find(name.toStdString())->ui;
        ui.rotation = ((ui.rotation + degrees) % 360 + 360) % 360;
        batch.edits.emplace_back(core::model::SetBlockUi{name.toStdString(), ui});
    }
    if (!batch.edits.empty()) applyEdit(batch, tr("Rotate"));
}

void DiagramScene::flipSelection() {
    core::model::EditBatch batch{{}, "flip"};
    for (const QString& name : selectedBlockNames()) {
        core::model::BlockUi ui = levelModel().find(name.toStdString())->ui;
        ui.flipped = !ui.flipped;
        batch.edits.emplace_back(core::model::SetBlockUi{name.toStdString(), ui});
    }
    if (!batch.edits.empty()) applyEdit(batch, tr("Flip"));
}

bool DiagramScene::renameBlock(const QString& from, const QString& to) {
    if (from == to) return true;
    if (!core::model::Model::validName(to.toStdString())) {
        status(tr("Cannot rename %1 to \"%2\": a name uses letters, digits and _ and does not start with a digit")
                   .arg(from, to));
        return false;
    }
    if (levelModel().find(to.toStdString())) {
        status(tr("Cannot rename %1: a block named %2 already exists").arg(from, to));
        return false;
    }
    if (const auto error = applyEdit(core::model::RenameBlock{from.toStdString(), to.toStdString()},
                                     tr("Rename %1 to %2").arg(from, to))) {
        status(*error);
        return false;
    }
    return true;
}

QMimeData* DiagramScene::copySelection() const {
    const QStringList names = selectedBlockNames();
    if (names.isEmpty()) return nullptr;
    m_pasteCount = 0;
    const core::model::Model& m = levelModel();
    core::model::Model fragment;
    for (const QString& n : names) fragment.apply(core::model::AddBlock{*m.find(n.toStdString())});
    for (const core::model::Connection& c : m.connections())
        if (names.contains(qs(c.a.block)) && names.contains(qs(c.b.block))) fragment.apply(core::model::Connect{c});
    auto* data = new QMimeData;
    const QByteArray bytes = core::io::serializeProject(fragment);
    data->setData(QString::fromLatin1(kBlocksMime), bytes);
    data->setText(QString::fromUtf8(bytes));
    return data;
}

void DiagramScene::cutSelection(QMimeData** copied) {
    *copied = copySelection();
    if (*copied) deleteSelection();
}

bool DiagramScene::paste(const QMimeData* data, std::optional<QPointF> at) {
    if (!data) return false;
    QByteArray bytes = data->data(QString::fromLatin1(kBlocksMime));
    if (bytes.isEmpty() && data->hasText()) bytes = data->text().toUtf8();   // a project pasted as text
    core::model::Model fragment;
    try {
        fragment = core::io::parseProject(bytes, QStringLiteral("clipboard"), m_doc.registry());
    } catch (const core::Error& e) {
        status(tr("Nothing to paste: %1").arg(qs(e.what())));
        return false;
    }
    if (fragment.blocks().empty()) return false;

    QPointF offset(2 * kGrid * (m_pasteCount + 1), 2 * kGrid * (m_pasteCount + 1));
    if (at) {
        QRectF box;
        for (const core::model::BlockSpec& b : fragment.blocks()) box |= QRectF(b.ui.x, b.ui.y, 1, 1);
        offset = QPointF(snap(at->x() - box.center().x()), snap(at->y() - box.center().y()));
    } else {
        ++m_pasteCount;
    }
    std::vector<QRectF> rects;
    for (const core::model::BlockSpec& b : fragment.blocks()) rects.push_back(footprint(b));
    offset = freeOffset(rects, offset);
    core::model::Model names = levelModel();   // scratch copy: fresh names against the model and each other
    std::map<std::string, std::string> renamed;
    core::model::EditBatch batch{{}, "paste"};
    QStringList added;
    for (core::model::BlockSpec b : fragment.blocks()) {
        const std::string fresh = names.find(b.name) ? names.uniqueName(b.name) : b.name;
        renamed[b.name] = fresh;
        b.name = fresh;
        b.ui.x += offset.x();
        b.ui.y += offset.y();
        names.apply(core::model::AddBlock{b});
        batch.edits.emplace_back(core::model::AddBlock{b});
        added << qs(fresh);
    }
    for (core::model::Connection c : fragment.connections()) {
        c.a.block = renamed[c.a.block];
        c.b.block = renamed[c.b.block];
        batch.edits.emplace_back(core::model::Connect{c});
    }
    if (const auto error = applyEdit(batch, tr("Paste %n block(s)", nullptr, static_cast<int>(added.size())))) {
        status(*error);
        return false;
    }
    selectBlocks(added);
    return true;
}

void DiagramScene::duplicateSelection() {
    std::unique_ptr<QMimeData> data(copySelection());
    if (!data) return;
    const int keep = m_pasteCount;
    m_pasteCount = 0;
    paste(data.get());
    m_pasteCount = keep;
}

}   // namespace endstop::gui
