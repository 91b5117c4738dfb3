// SPDX-License-Identifier: GPL-3.0-or-later
// One way to write a file so that nothing is lost (docs/reliability.md):
// - a regular file (or a new one) is written to a temporary file beside it, unbuffered so that
//   every write's error is seen, synced to disk, and renamed over the target only at commit();
//   on any failure the previous file is left as it was and the temporary file is removed;
// - a device, FIFO or socket (/dev/null, /dev/stdout, a pipe) is written through, never replaced;
// - "-" is standard output.
// Every failure throws IoError("cannot write '<path>': <reason>"); after one, write() and commit()
// refuse with the same reason.
#pragma once

#include <memory>
#include <string>
#include <string_view>

class QByteArray;
class QFile;
class QString;
class QSaveFile;

namespace endstop::core::io {

class OutputFile {
public:
    explicit OutputFile(std::string path);   // opens now, so a bad path fails before any work
    ~OutputFile();                           // without commit(): the target is left untouched
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    void write(std::string_view bytes);
    void commit();
    const std::string& path() const { return m_path; }

private:
    [[noreturn]] void fail(const std::string& reason);

    std::string m_path;
    std::unique_ptr<QSaveFile> m_save;   // regular files
    std::unique_ptr<QFile> m_direct;     // devices, FIFOs, standard output
    std::string m_failure;               // the first failure's reason: later calls repeat it
    bool m_committed = false;
};

// Writes `bytes` to `path` as above in one go.
void writeFile(const std::string& path, std::string_view bytes);
void writeFile(const QString& path, const QByteArray& bytes);

}   // namespace endstop::core::io
