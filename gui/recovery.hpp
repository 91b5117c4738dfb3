// SPDX-License-Identifier: GPL-3.0-or-later
// Recovery: autosave of unsaved changes to a recovery file, and the offer to restore it after a
// crash. Each running window holds a lock next to its recovery file; a recovery file whose lock
// nobody holds was left by a process that died. A clean close or a save removes the file.
#pragma once

#include <QDateTime>
#include <QLockFile>
#include <QObject>
#include <QString>

#include <memory>

class QTimer;

namespace endstop::gui {

class Document;

struct RecoveredFile {
    QString recoveryPath;   // the autosaved project
    QString originalPath;   // the file it was a copy of ("" for untitled)
    QDateTime saved;
};

class Recovery : public QObject {
    Q_OBJECT
public:
    // interval from ENDSTOP_AUTOSAVE_MS if set, else one minute
    explicit Recovery(Document& doc, QObject* parent = nullptr);
    ~Recovery() override;

    static QString directory();
    static QList<RecoveredFile> orphans();   // left by processes that are gone
    static void discard(const RecoveredFile& f);

    bool autosave();   // writes the recovery file if there are unsaved changes; true if written
    void clear();      // the document was saved or discarded
    const QString& path() const { return m_path; }

private:
    Document& m_doc;
    QString m_path;
    std::unique_ptr<QLockFile> m_lock;
    QTimer* m_timer;
    int m_savedIndex = -1;
};

}   // namespace endstop::gui
