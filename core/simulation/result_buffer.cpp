// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/simulation/result_buffer.hpp"

#include <algorithm>
#include <cstring>

namespace endstop::core::simulation {

namespace {
// room for `more` values; geometric, as readers append frame after frame to the same vector
void grow(std::vector<double>& v, std::size_t more) {
    if (v.capacity() < v.size() + more) v.reserve(std::max(v.size() + more, 2 * v.capacity()));
}
constexpr std::size_t kChunkDoubles = std::size_t{1} << 17;   // 1 MiB of doubles a chunk
constexpr std::size_t kMinChunkRows = 16;
}   // namespace

ResultBuffer::ResultBuffer() = default;
ResultBuffer::~ResultBuffer() = default;

void ResultBuffer::begin(const std::vector<Column>& columns) {
    m_columns = columns;
    m_stride = columns.size() + 1;
    m_chunkRows = std::max(kMinChunkRows, kChunkDoubles / m_stride);
    m_begun.store(true, std::memory_order_release);
}

void ResultBuffer::row(double t, std::span<const double> values) {
    const std::size_t inChunk = m_writeRow % m_chunkRows;
    if (inChunk == 0) {
        auto chunk = std::make_unique<double[]>(m_chunkRows * m_stride);
        const std::lock_guard lock(m_chunksMutex);
        m_chunks.push_back(std::move(chunk));
    }
    double* dst = m_chunks.back().get() + inChunk * m_stride;   // only this thread changes m_chunks
    dst[0] = t;
    const std::size_t n = std::min(values.size(), m_stride - 1);
    if (n > 0) std::memcpy(dst + 1, values.data(), n * sizeof(double));   // a model without columns passes no data
    std::fill(dst + 1 + n, dst + m_stride, 0.0);
    m_rows.store(++m_writeRow, std::memory_order_release);
}

void ResultBuffer::event(const EventRecord& e) {
    const std::lock_guard lock(m_mutex);
    m_events.push_back(e);
}

void ResultBuffer::end(const RunStats& stats) {
    {
        const std::lock_guard lock(m_mutex);
        m_stats = stats;
    }
    m_ended.store(true, std::memory_order_release);
}

const std::vector<Column>& ResultBuffer::columns() const {
    static const std::vector<Column> kNone;
    return begun() ? m_columns : kNone;
}

int ResultBuffer::columnIndex(std::string_view name) const {
    const std::vector<Column>& c = columns();
    for (std::size_t i = 0; i < c.size(); ++i)
        if (c[i].name == name) return static_cast<int>(i);
    return -1;
}

const double* ResultBuffer::rowPtr(std::size_t row) const {
    return m_chunks[row / m_chunkRows].get() + (row % m_chunkRows) * m_stride;
}

void ResultBuffer::read(int column, std::size_t from, std::size_t to, std::vector<double>& out) const {
    to = std::min(to, rows());
    if (from >= to || column < kTime || column >= static_cast<int>(m_stride) - 1) return;
    const std::size_t offset = static_cast<std::size_t>(column + 1);
    grow(out, to - from);
    const std::lock_guard lock(m_chunksMutex);   // the chunk list, not the rows below rows()
    for (std::size_t r = from; r < to;) {
        const double* base = m_chunks[r / m_chunkRows].get();
        const std::size_t end = std::min(to, (r / m_chunkRows + 1) * m_chunkRows);
        for (std::size_t i = r % m_chunkRows; r < end; ++r, ++i) out.push_back(base[i * m_stride + offset]);
    }
}

void ResultBuffer::read(std::span<const int> columns, std::size_t from, std::size_t to,
                        std::span<std::vector<double>* const> out) const {
    to = std::min(to, rows());
    const std::size_t n = std::min(columns.size(), out.size());
    if (from >= to || n == 0) return;
    std::vector<std::size_t> offsets(n);
    for (std::size_t c = 0; c < n; ++c) {
        if (columns[c] < kTime || columns[c] >= static_cast<int>(m_stride) - 1) return;
        offsets[c] = static_cast<std::size_t>(columns[c] + 1);
        grow(*out[c], to - from);
    }
    const std::lock_guard lock(m_chunksMutex);
    for (std::size_t r = from; r < to;) {   // chunk by chunk: no division per row
        const std::size_t end = std::min(to, (r / m_chunkRows + 1) * m_chunkRows);
        const double* row = rowPtr(r);
        for (; r < end; ++r, row += m_stride)
            for (std::size_t c = 0; c < n; ++c) out[c]->push_back(row[offsets[c]]);
    }
}

double ResultBuffer::value(std::size_t row, int column) const {
    const std::lock_guard lock(m_chunksMutex);
    return rowPtr(row)[column + 1];
}

double ResultBuffer::lastTime() const {
    const std::size_t n = rows();
    return n == 0 ? 0.0 : value(n - 1, kTime);
}

std::size_t ResultBuffer::readEvents(std::size_t from, std::vector<EventRecord>& out) const {
    const std::lock_guard lock(m_mutex);
    for (std::size_t i = from; i < m_events.size(); ++i) out.push_back(m_events[i]);
    return m_events.size();
}

std::size_t ResultBuffer::eventCount() const {
    const std::lock_guard lock(m_mutex);
    return m_events.size();
}

RunStats ResultBuffer::stats() const {
    const std::lock_guard lock(m_mutex);
    return m_stats;
}

}   // namespace endstop::core::simulation
