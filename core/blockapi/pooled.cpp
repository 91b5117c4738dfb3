// SPDX-License-Identifier: GPL-3.0-or-later
// The pool behind Pooled: size classes of 64-byte multiples cut from chunks of 256 KiB, freed
// objects kept on per-class lists. Blocks are created at build time on any thread, so one mutex.
#include "core/blockapi/pooled.hpp"

#include <mutex>
#include <new>
#include <vector>

namespace endstop::core {

namespace {

class Pool {
public:
    void* allocate(std::size_t size) {
        const std::size_t cls = (size + kGrain - 1) / kGrain;
        std::lock_guard lock(m_mutex);
        if (cls >= m_free.size()) m_free.resize(cls + 1);
        if (void* p = m_free[cls]) {
            m_free[cls] = *static_cast<void**>(p);
            return p;
        }
        const std::size_t bytes = cls * kGrain;
        if (bytes > kChunk) return ::operator new(bytes);
        if (m_left < bytes) {
            m_next = static_cast<char*>(::operator new(kChunk));   // chunks live as long as the program
            m_left = kChunk;
        }
        void* p = m_next;
        m_next += bytes;
        m_left -= bytes;
        return p;
    }
    void release(void* p, std::size_t size) {
        const std::size_t cls = (size + kGrain - 1) / kGrain;
        if (cls * kGrain > kChunk) {
            ::operator delete(p);
            return;
        }
        std::lock_guard lock(m_mutex);
        *static_cast<void**>(p) = m_free[cls];
        m_free[cls] = p;
    }

private:
    static constexpr std::size_t kGrain = 64, kChunk = 256 * 1024;
    std::mutex m_mutex;
    std::vector<void*> m_free;
    char* m_next = nullptr;
    std::size_t m_left = 0;
};

Pool& pool() {
    static Pool* p = new Pool;   // never destroyed: blocks may outlive static destruction order
    return *p;
}

}   // namespace

void* Pooled::operator new(std::size_t size) { return pool().allocate(size); }
void Pooled::operator delete(void* p, std::size_t size) noexcept { pool().release(p, size); }

}   // namespace endstop::core
