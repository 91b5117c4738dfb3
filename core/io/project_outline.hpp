// SPDX-License-Identifier: GPL-3.0-or-later
// A project file's outline: its top-level object with the two long arrays, "blocks" and
// "connections", written empty (the skeleton), and where each of their elements lies in the text.
// A QJsonDocument of a whole file costs about three times the file: a 40,000-block project (20 MB)
// took 60 MB of DOM on top of its text. The reader parses the skeleton and then the elements a
// chunk at a time (simdjson's parse of the chunk; Qt's of an element the reader does not take in
// from it: project_reader_impl.hpp), so that only one chunk's document is alive at once.
// loadProject() does not even keep the text: once outlined, the elements are read again from the
// open file a chunk at a time (OutlinedText), so the text (20 MB) is not alive while the model
// is built (docs/architecture.md, "Memory").
//
// A parser reads every piece; the outline only finds where the pieces are (strings and brackets are
// skipped, nothing is interpreted). What it cannot split (a key spelled with escapes or given
// twice, brackets that do not close, text after the end) gives nullopt. A piece it splits may
// still not parse: parseElement() then says so, and the reader fails. Any failure on the outlined
// path sends parseProject() to the whole-file parse, which gives the result and the error message
// it always gave. A good file's pieces are parsed once by simdjson, and again by Qt only where the
// reader leaves an element to it.
#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonValue>

#include <optional>
#include <vector>

class QFile;

namespace endstop::core::io {

struct TextRange {
    qsizetype begin = 0, size = 0;   // bytes of the text
};

struct Outline {
    QByteArray skeleton;   // the top-level object; "blocks" and "connections" hold []
    // the elements of the top-level arrays; nullopt: the document has no such key
    std::optional<std::vector<TextRange>> blocks, connections;
};

std::optional<Outline> outline(QByteArrayView text);

// Where an outline's elements are read from: the outlined text itself, or the open file it was read
// from (its ranges are the file's bytes).
class OutlinedText {
public:
    explicit OutlinedText(QByteArrayView text) : m_text(text) {}
    explicit OutlinedText(QFile& file) : m_file(&file) {}
    // The bytes of `span`: a view of the text, or read from the file. Shorter than the span if the
    // file no longer has them (it changed since): its pieces then fail to parse, and the caller
    // reads the whole file again.
    QByteArray read(TextRange span) const;

private:
    QByteArrayView m_text;
    QFile* m_file = nullptr;
};

// One element of an outlined array, parsed as it stands in the whole file (at the depth of a
// top-level array's element, so that Qt's nesting limit applies alike); nullopt if it does not
// parse so.
std::optional<QJsonValue> parseElement(QByteArrayView text, TextRange range);

}   // namespace endstop::core::io
