// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/io/project_outline.hpp"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>

#include <algorithm>
#include <array>

namespace endstop::core::io {

namespace {

// Walks the text without interpreting it: where values begin and end, nothing more.
class Scanner {
public:
    explicit Scanner(QByteArrayView text) : m_begin(text.data()), m_p(text.data()), m_end(text.data() + text.size()) {}

    qsizetype pos() const { return m_p - m_begin; }
    void skip(qsizetype n) { m_p += std::min<qsizetype>(n, m_end - m_p); }
    bool atEnd() const { return m_p == m_end; }
    // the whitespace JSON allows, and Qt's parser with it
    void space() {
        while (m_p < m_end && (*m_p == ' ' || *m_p == '\t' || *m_p == '\n' || *m_p == '\r')) ++m_p;
    }
    bool eat(char c) {
        if (m_p == m_end || *m_p != c) return false;
        ++m_p;
        return true;
    }
    bool next(char c) const { return m_p < m_end && *m_p == c; }
    // a key as written; false if it has escapes (its meaning would take a parser) or no end
    bool plainKey(QByteArrayView& key) {
        if (!eat('"')) return false;
        const char* start = m_p;
        while (m_p < m_end && *m_p != '"') {
            if (*m_p == '\\') return false;
            ++m_p;
        }
        if (m_p == m_end) return false;
        key = QByteArrayView(start, m_p - start);
        ++m_p;
        return true;
    }
    // one value: a string, an object or array (brackets counted, strings skipped) or a bare word
    // (number, true, false, null) up to the next delimiter
    bool value() {
        if (m_p == m_end) return false;
        if (*m_p == '"') return string();
        if (*m_p == '{' || *m_p == '[') {
            long depth = 0;
            while (m_p < m_end) {
                while (m_p < m_end && kPlain[static_cast<unsigned char>(*m_p)]) ++m_p;   // most of the text
                if (m_p == m_end) break;
                const char c = *m_p;
                if (c == '"') {
                    if (!string()) return false;
                    continue;
                }
                ++m_p;
                if (c == '{' || c == '[')
                    ++depth;
                else if (--depth == 0)
                    return true;
            }
            return false;
        }
        const char* start = m_p;
        while (m_p < m_end && !delimiter(*m_p)) ++m_p;
        return m_p > start;
    }

private:
    static bool delimiter(char c) {
        return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
    }
    // the bytes a container's scan passes over: all but quotes and brackets
    static constexpr std::array<bool, 256> kPlain = [] {
        std::array<bool, 256> plain{};
        plain.fill(true);
        for (const char c : {'"', '{', '}', '[', ']'}) plain[static_cast<unsigned char>(c)] = false;
        return plain;
    }();

    bool string() {
        ++m_p;   // the opening quote
        while (m_p < m_end) {
            if (*m_p == '\\') {
                m_p += m_end - m_p >= 2 ? 2 : 1;
                continue;
            }
            if (*m_p++ == '"') return true;
        }
        return false;
    }

    const char* m_begin;
    const char* m_p;
    const char* m_end;
};

// The elements of the array the scanner stands on, or nullopt if it is not a plain array of values.
std::optional<std::vector<TextRange>> elements(Scanner& s) {
    std::vector<TextRange> out;
    if (!s.eat('[')) return std::nullopt;
    s.space();
    if (s.eat(']')) return out;
    while (true) {
        const qsizetype begin = s.pos();
        if (!s.value()) return std::nullopt;
        out.push_back({begin, s.pos() - begin});
        s.space();
        if (s.eat(']')) return out;
        if (!s.eat(',')) return std::nullopt;
        s.space();
    }
}

}   // namespace

std::optional<Outline> outline(QByteArrayView text) {
    Scanner s(text);
    Outline o;
    std::vector<TextRange> cut;   // the two arrays' values, in text order, replaced by [] in the skeleton
    bool seenBlocks = false, seenConnections = false;
    if (text.startsWith("\xef\xbb\xbf")) s.skip(3);   // a UTF-8 byte order mark, which Qt's parser skips too
    s.space();
    if (!s.eat('{')) return std::nullopt;
    s.space();
    if (!s.next('}')) {
        while (true) {
            QByteArrayView key;
            if (!s.plainKey(key)) return std::nullopt;
            s.space();
            if (!s.eat(':')) return std::nullopt;
            s.space();
            const qsizetype begin = s.pos();
            const bool isBlocks = key == "blocks", isConnections = key == "connections";
            if (isBlocks || isConnections) {
                bool& seen = isBlocks ? seenBlocks : seenConnections;
                if (seen) return std::nullopt;   // which one a parser keeps is the parser's business
                seen = true;
            }
            if ((isBlocks || isConnections) && s.next('[')) {
                auto list = elements(s);
                if (!list) return std::nullopt;
                (isBlocks ? o.blocks : o.connections) = std::move(*list);
                cut.push_back({begin, s.pos() - begin});
            } else if (!s.value()) {
                return std::nullopt;
            }
            s.space();
            if (s.eat(',')) {
                s.space();
                continue;
            }
            if (s.next('}')) break;
            return std::nullopt;
        }
    }
    s.eat('}');
    s.space();
    if (!s.atEnd()) return std::nullopt;

    qsizetype from = 0;
    for (const TextRange& r : cut) {
        o.skeleton.append(text.sliced(from, r.begin - from)).append("[]");
        from = r.begin + r.size;
    }
    o.skeleton.append(text.sliced(from));
    return o;
}

QByteArray OutlinedText::read(TextRange span) const {
    if (!m_file) return QByteArray::fromRawData(m_text.data() + span.begin, span.size);   // no copy
    QByteArray bytes(span.size, Qt::Uninitialized);
    if (!m_file->seek(span.begin)) return {};
    const qint64 n = m_file->read(bytes.data(), span.size);
    bytes.truncate(std::max<qint64>(n, 0));
    return bytes;
}

std::optional<QJsonValue> parseElement(QByteArrayView text, TextRange r) {
    QByteArray wrapped;
    wrapped.reserve(r.size + 4);
    wrapped.append("[[").append(text.sliced(r.begin, r.size)).append("]]");
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(wrapped, &err);
    if (err.error != QJsonParseError::NoError || doc.array().size() != 1) return std::nullopt;
    const QJsonArray inner = doc.array().first().toArray();
    if (inner.size() != 1) return std::nullopt;
    return inner.first();
}

}   // namespace endstop::core::io
