// SPDX-License-Identifier: GPL-3.0-or-later
// The outlined elements of a project file, parsed a chunk at a time by simdjson, and the common
// shapes of a top-level block and connection taken in from that parse directly. Anything else (an
// instance, display units, an older type version, a value this file does not read, a number Qt
// would read otherwise, any check that fails) is left to the reader's checks against Qt's parse of
// the element (project_reader_blocks.cpp), which alone gives messages. What this file accepts it
// must read exactly as that path would: tst_project_outline and the fuzz stage compare the two.
// docs/architecture.md, "Loading a large file".
#include "core/io/project_file.hpp"
#include "core/io/project_reader_impl.hpp"
#include "core/model/flatten.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <string_view>

namespace endstop::core::io::detail {

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

// deeper than any shape read here, far below Qt's limit: a deeper chunk is Qt's to judge
constexpr std::size_t kMaxDepth = 32;

// A number as Qt reads it, where the two agree to the bit: an integer literal, or a non-zero,
// normal double (Qt reads "-0.0" as +0 and refuses literals that underflow to 0).
std::optional<double> numberOf(element e) {
    switch (e.type()) {
        case element_type::INT64:
            return static_cast<double>(int64_t(e));
        case element_type::UINT64:
            return static_cast<double>(uint64_t(e));
        case element_type::DOUBLE: {
            const double d = double(e);
            if (!std::isnormal(d)) return std::nullopt;
            return d;
        }
        default:
            return std::nullopt;
    }
}

std::optional<std::string_view> text(element e) {
    if (e.type() != element_type::STRING) return std::nullopt;
    return std::string_view(e);
}

// An object's fields, at most N of them.
template <std::size_t N> struct Fields {
    std::array<std::string_view, N> keys;
    std::array<element, N> values;
    std::size_t size = 0;
};

// false if e is no object, a key is given twice (Qt keeps one of them; which is Qt's business) or
// there are more than N (filled in place: 64 parameters are 2 kB, once per block)
template <std::size_t N> bool fields(element e, Fields<N>& f) {
    if (e.type() != element_type::OBJECT) return false;
    f.size = 0;
    for (const simdjson::dom::key_value_pair field : simdjson::dom::object(e)) {
        if (f.size == N || std::find(f.keys.begin(), f.keys.begin() + f.size, field.key) != f.keys.begin() + f.size)
            return false;
        f.keys[f.size] = field.key;
        f.values[f.size++] = field.value;
    }
    return true;
}

// A parameter's value as convert() reads it from Qt's (project_reader_blocks.cpp), for the shapes
// it reads without a message; nullopt for the rest.
std::optional<ParamValue> convertFast(element v, const ParamDesc& d,
                                      const std::function<bool(std::string_view)>& known) {
    switch (d.type) {
        case ParamType::Real:
            if (const auto x = numberOf(v)) return *x;
            if (const auto s = text(v)) return realText(std::string(*s), d, known);
            return std::nullopt;
        case ParamType::Vector: {
            if (const auto s = text(v)) return parseParameterText(std::string(*s), d);
            if (v.type() != element_type::ARRAY) return std::nullopt;
            std::vector<double> xs;
            for (const element x : simdjson::dom::array(v)) {
                const auto value = numberOf(x);
                if (!value) return std::nullopt;
                xs.push_back(*value);
            }
            return xs;
        }
        case ParamType::Choice:
        case ParamType::Text:
            if (const auto s = text(v)) return parseParameterText(std::string(*s), d);
            return std::nullopt;
    }
    return std::nullopt;
}

// "ui" as readUi() reads it, without display units; false for anything it would refuse
bool uiFast(element v, model::BlockUi& ui) {
    Fields<8> f;
    if (!fields(v, f)) return false;
    for (std::size_t k = 0; k < f.size; ++k) {
        const std::string_view key = f.keys[k];
        const element value = f.values[k];
        if (key == "pos") {
            if (value.type() != element_type::ARRAY) return false;
            const simdjson::dom::array pos(value);
            if (pos.size() != 2) return false;
            const auto x = numberOf(pos.at(0).value_unsafe()), y = numberOf(pos.at(1).value_unsafe());
            if (!x || !y) return false;
            ui.x = *x;
            ui.y = *y;
        } else if (key == "rotation") {
            const auto r = numberOf(value);
            const std::optional<int> turns = r ? quarterTurns(*r) : std::nullopt;
            if (!turns) return false;
            ui.rotation = *turns;
        } else if (key == "flip") {
            ui.flipped = value.type() == element_type::BOOL && bool(value);   // QJsonValue::toBool()
        } else if (key == "units") {
            return false;
        }   // other keys are left to other tools
    }
    return true;
}

}   // namespace

Elements::Elements(QJsonArray array) : m_array(std::move(array)) {}
Elements::Elements(const OutlinedText& text, const std::vector<TextRange>& ranges) : m_text(&text), m_ranges(&ranges) {}
Elements::Elements(Elements&&) noexcept = default;
Elements::~Elements() = default;

// The chunk's text in one piece (one read of the file), wrapped as an array and parsed by simdjson.
void Elements::load(qsizetype i) const {
    const qsizetype first = i - i % kChunk;
    if (first == m_first) return;
    m_first = first;
    m_fast.clear();
    const qsizetype last = std::min(first + kChunk, size());
    const TextRange& a = (*m_ranges)[static_cast<std::size_t>(first)];
    const TextRange& z = (*m_ranges)[static_cast<std::size_t>(last - 1)];
    const TextRange span{a.begin, z.begin + z.size - a.begin};
    const QByteArray bytes = m_text->read(span);
    m_whole = bytes.size() == span.size;
    const auto n = static_cast<std::size_t>(bytes.size());
    m_piece = simdjson::padded_string(n + 2);
    m_piece.data()[0] = '[';
    std::memcpy(m_piece.data() + 1, bytes.constData(), n);
    m_piece.data()[n + 1] = ']';
    if (!m_whole) return;
    if (!m_parser) {
        m_parser = std::make_unique<simdjson::dom::parser>();
        if (m_parser->allocate(m_piece.size(), kMaxDepth) != simdjson::SUCCESS) return;
    }
    simdjson::dom::array list;
    if (m_parser->parse(m_piece).get_array().get(list) != simdjson::SUCCESS) return;
    if (list.size() != static_cast<std::size_t>(last - first)) return;
    m_fast.assign(list.begin(), list.end());
}

QJsonValue Elements::operator[](qsizetype i) const {
    if (!m_ranges) return m_array[i];
    load(i);
    TextRange r = (*m_ranges)[static_cast<std::size_t>(i)];
    r.begin -= (*m_ranges)[static_cast<std::size_t>(m_first)].begin - 1;   // within "[" piece "]"
    std::optional<QJsonValue> v;
    if (m_whole) v = parseElement(QByteArrayView(m_piece.data(), static_cast<qsizetype>(m_piece.size())), r);
    // parseProject() then parses the whole file, which says what is wrong and where
    if (!v) throw FileFormatError("an outlined element does not parse");
    return *v;
}

std::optional<element> Elements::fast(qsizetype i) const {
    if (!m_ranges) return std::nullopt;
    load(i);
    if (m_fast.empty()) return std::nullopt;
    return m_fast[static_cast<std::size_t>(i - m_first)];
}

std::optional<std::pair<std::string, std::string>> fastPair(const std::optional<element>& e) {
    if (!e || e->type() != element_type::ARRAY) return std::nullopt;
    const simdjson::dom::array pair(*e);
    if (pair.size() != 2) return std::nullopt;
    const auto a = text(pair.at(0).value_unsafe()), b = text(pair.at(1).value_unsafe());
    if (!a || !b) return std::nullopt;
    return std::pair{std::string(*a), std::string(*b)};
}

// readBlocks()'s reading of a plain block at the top level: the same checks in the same order, each
// of which, failing, leaves the block to readBlocks() and its message.
bool Reader::readBlockFast(element e, model::Model& body, const model::Model& root) const {
    Fields<5> f;
    if (!fields(e, f)) return false;
    std::optional<element> name, type, typeVersion, parameters, ui;
    for (std::size_t k = 0; k < f.size; ++k) {
        const std::string_view key = f.keys[k];
        std::optional<element>* slot = key == "name"          ? &name
                                       : key == "type"        ? &type
                                       : key == "typeVersion" ? &typeVersion
                                       : key == "parameters"  ? &parameters
                                       : key == "ui"          ? &ui
                                                              : nullptr;
        if (!slot) return false;
        *slot = f.values[k];
    }
    const auto nameText = name ? text(*name) : std::nullopt;
    const auto typeText = type ? text(*type) : std::nullopt;
    if (!nameText || !typeText) return false;
    model::BlockSpec spec;
    spec.name = std::string(*nameText);
    if (!model::Model::validName(spec.name) || body.find(spec.name)) return false;
    spec.type = std::string(*typeText);
    if (!model::subsystemOf(spec.type).empty()) return false;   // an instance
    const BlockType* blockType = m_registry.find(spec.type);
    if (!blockType) return false;
    spec.typeVersion = blockType->info.typeVersion;
    if (typeVersion) {   // an older version as the slow path keeps it: its keys, all known, below
        const std::optional<double> version = numberOf(*typeVersion);
        if (!version || !(*version >= 1 && *version <= spec.typeVersion && *version == std::floor(*version)))
            return false;   // newer, or wrong: the slow path's message
        spec.typeVersion = static_cast<int>(*version);
    }
    const BlockDescription* proto = prototype(spec.type);
    if (parameters) {
        Fields<64> p;
        if (!fields(*parameters, p)) return false;
        const auto known = [&](std::string_view s) { return inScope(root, s); };
        for (std::size_t k = 0; k < p.size; ++k) {
            const ParamDesc* desc = proto->param(p.keys[k]);
            if (!desc) return false;
            std::optional<ParamValue> value;
            try {
                value = convertFast(p.values[k], *desc, known);
            } catch (const Error&) {
                return false;
            }
            if (!value) return false;
            spec.params.emplace(std::string(p.keys[k]), std::move(*value));
        }
    }
    if (ui && !uiFast(*ui, spec.ui)) return false;
    body.apply(model::AddBlock{std::move(spec)});
    return true;
}

}   // namespace endstop::core::io::detail
