// SPDX-License-Identifier: GPL-3.0-or-later
// A project file's outline: its top-level object with the two long arrays, "blocks" and
// "connections", written empty (the skeleton), and where each of their elements lies in the text.
// A QJsonDocument of a whole file costs about three times the file: a 40,000-block project (20 MB)
// took 60 MB of DOM on top of its text. The reader parses the skeleton and then one element at a
// time, so that only one block's DOM is alive at once (docs/architecture.md, "Memory").
//
// Qt parses every piece; the outline only finds where the pieces are (strings and brackets are
// skipped, nothing is interpreted). Its promise: when outline() returns one, the skeleton and every
// element parse, and the document they form is the one a whole-file parse gives. Anything else (a
// syntax error, a key spelled with escapes or given twice, an element that does not parse) gives
// nullopt, and the caller parses the whole file as before: same result, same error message.
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

// One element of an outlined array, parsed alone (outline() checked that it parses).
QJsonValue parseElement(QByteArrayView text, TextRange range);

}   // namespace endstop::core::io
