// SPDX-License-Identifier: GPL-3.0-or-later
// Where a file dialog opens: the folder remembered under `settingsKey` if it still exists, else
// the user's documents folder (never "/", which a first dialog would otherwise show).
#pragma once

#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>
#include <QString>

namespace endstop::gui {

inline QString startDirectory(const QString& settingsKey) {
    const QString last = QSettings().value(settingsKey).toString();
    if (!last.isEmpty() && QFileInfo(last).isDir()) return last;
    const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    return !documents.isEmpty() && QFileInfo(documents).isDir() ? documents : QDir::homePath();
}

}   // namespace endstop::gui
