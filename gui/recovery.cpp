// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/recovery.hpp"

#include "core/io/output_file.hpp"
#include "core/io/project_file.hpp"
#include "core/errors.hpp"
#include "gui/document.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTimer>
#include <QUndoStack>
#include <QUuid>

namespace endstop::gui {

namespace {
QString metaPath(const QString& project) { return project + QStringLiteral(".json"); }
QString lockPath(const QString& project) { return project + QStringLiteral(".lock"); }
}   // namespace

QString Recovery::directory() {
    return QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) + QStringLiteral("/recovery");
}

Recovery::Recovery(Document& doc, QObject* parent) : QObject(parent), m_doc(doc), m_timer(new QTimer(this)) {
    QDir().mkpath(directory());
    m_path =
        directory() + QStringLiteral("/session-%1.endstop").arg(QUuid::createUuid().toString(QUuid::Id128).left(12));
    m_lock = std::make_unique<QLockFile>(lockPath(m_path));
    m_lock->setStaleLockTime(0);
    m_lock->tryLock(100);
    bool ok = false;
    const int ms = qEnvironmentVariableIntValue("ENDSTOP_AUTOSAVE_MS", &ok);
    m_timer->setInterval(ok && ms > 0 ? ms : 60'000);
    connect(m_timer, &QTimer::timeout, this, &Recovery::autosave);
    m_timer->start();
}

Recovery::~Recovery() {
    clear();
    m_lock->unlock();
    QFile::remove(lockPath(m_path));
}

bool Recovery::autosave() {
    if (!m_doc.isDirty()) return false;
    const int index = m_doc.undoStack()->index();
    if (index == m_savedIndex && QFile::exists(m_path)) return false;
    // the recovery copy and its note are written whole or not at all (a full disk keeps the last
    // good copy); the next autosave tries again
    try {
        core::io::writeFile(m_path, core::io::serializeProject(m_doc.model()));
        const QJsonObject o{{"original", m_doc.path()}, {"saved", QDateTime::currentDateTime().toString(Qt::ISODate)}};
        core::io::writeFile(metaPath(m_path), QJsonDocument(o).toJson());
    } catch (const core::IoError&) {
        return false;
    }
    m_savedIndex = index;
    return true;
}

void Recovery::clear() {
    QFile::remove(m_path);
    QFile::remove(metaPath(m_path));
    m_savedIndex = -1;
}

QList<RecoveredFile> Recovery::orphans() {
    QList<RecoveredFile> out;
    const QDir dir(directory());
    for (const QFileInfo& fi : dir.entryInfoList({QStringLiteral("session-*.endstop")}, QDir::Files, QDir::Time)) {
        QLockFile lock(lockPath(fi.absoluteFilePath()));
        if (!lock.tryLock(0)) continue;   // its window is still open
        lock.unlock();
        RecoveredFile r{fi.absoluteFilePath(), {}, fi.lastModified()};
        QFile meta(metaPath(r.recoveryPath));
        if (meta.open(QIODevice::ReadOnly))
            r.originalPath = QJsonDocument::fromJson(meta.readAll()).object().value("original").toString();
        out << r;
    }
    return out;
}

void Recovery::discard(const RecoveredFile& f) {
    QFile::remove(f.recoveryPath);
    QFile::remove(metaPath(f.recoveryPath));
    QFile::remove(lockPath(f.recoveryPath));
}

}   // namespace endstop::gui
