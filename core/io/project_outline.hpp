// SPDX-License-Identifier: GPL-3.0-or-later
// A project file's outline: its top-level object with the two long arrays, "blocks" and
// "connections", written empty (the skeleton), and where each of their elements lies in the text.
// A QJsonDocument of a whole file costs about three times the file: a 40,000-block project (20 MB)
// took 60 MB of DOM on top of its text. The reader parses the skeleton and then the elements in
// chunks (one being read, the next being parsed), so that only two chunks' DOMs are alive at once
// (docs/architecture.md, "Memory").
//
// Qt parses every piece; the outline only finds where the pieces are (strings and brackets are
// skipped, nothing is interpreted). What it cannot split (a key spelled with escapes or given
// twice, brackets that do not close, text after the end) gives nullopt. A piece it splits may
// still not parse: parseElement() then says so, and the reader fails. Any failure on the outlined
// path sends parseProject() to the whole-file parse, which gives the result and the error message
// it always gave; each piece is parsed once when the file is good.
#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonValue>

#include <optional>
#include <vector>

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

// One element of an outlined array, parsed as it stands in the whole file (at the depth of a
// top-level array's element, so that Qt's nesting limit applies alike); nullopt if it does not
// parse so.
std::optional<QJsonValue> parseElement(QByteArrayView text, TextRange range);

}   // namespace endstop::core::io
