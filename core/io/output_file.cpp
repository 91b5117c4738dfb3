// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/io/output_file.hpp"

#include "core/errors.hpp"

#include <QFileInfo>
#include <QSaveFile>

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace endstop::core::io {

namespace {
constexpr QIODevice::OpenMode kMode = QIODevice::WriteOnly | QIODevice::Unbuffered;
}

OutputFile::OutputFile(std::string path) : m_path(std::move(path)) {
    if (m_path.empty()) fail("no file name given");
    if (m_path == "-") {
        m_direct = std::make_unique<QFile>();
        if (!m_direct->open(STDOUT_FILENO, kMode, QFileDevice::DontCloseHandle))
            fail(m_direct->errorString().toStdString());
        return;
    }
    const QString qpath = QString::fromStdString(m_path);
    const QFileInfo info(qpath);
    if (info.isDir()) fail("it is a directory");
    if (info.exists() && !info.isFile()) {   // a device, FIFO or socket: written through, never replaced
        m_direct = std::make_unique<QFile>(qpath);
        if (!m_direct->open(kMode)) fail(m_direct->errorString().toStdString());
        return;
    }
    m_save = std::make_unique<QSaveFile>(qpath);
    if (!m_save->open(kMode)) fail(m_save->errorString().toStdString());
}

OutputFile::~OutputFile() = default;   // an uncommitted QSaveFile removes its temporary file

void OutputFile::write(std::string_view bytes) {
    if (!m_failure.empty()) fail(m_failure);
    QFileDevice& dev = m_save ? static_cast<QFileDevice&>(*m_save) : *m_direct;
    while (!bytes.empty()) {
        const qint64 n = dev.write(bytes.data(), static_cast<qint64>(bytes.size()));
        if (n <= 0) fail(dev.errorString().toStdString());
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
}

void OutputFile::commit() {
    if (m_committed) return;
    if (!m_failure.empty()) fail(m_failure);
    if (m_save) {
        // the data must be on the disk before the rename makes it the file: a full disk or an
        // I/O error shows up here at the latest (delayed allocation), not after success
        if (m_save->error() != QFileDevice::NoError) fail(m_save->errorString().toStdString());
        if (::fsync(m_save->handle()) != 0 && errno != EINVAL && errno != EROFS) fail(std::strerror(errno));
        if (!m_save->commit()) fail(m_save->errorString().toStdString());
    } else if (!m_direct->flush() || m_direct->error() != QFileDevice::NoError) {
        fail(m_direct->errorString().toStdString());
    }
    m_committed = true;
}

void OutputFile::fail(const std::string& reason) {
    m_failure = reason;
    if (m_save) m_save->cancelWriting();
    throw IoError("cannot write '" + (m_path == "-" ? std::string("standard output") : m_path) + "': " + reason);
}

void writeFile(const std::string& path, std::string_view bytes) {
    OutputFile f(path);
    f.write(bytes);
    f.commit();
}

void writeFile(const QString& path, const QByteArray& bytes) {
    writeFile(path.toStdString(), std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
}

}   // namespace endstop::core::io
