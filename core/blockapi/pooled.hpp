// SPDX-License-Identifier: GPL-3.0-or-later
// Pooled: a base whose objects live in a pool of their own, packed together. Blocks derive from
// it: the evaluator visits every block at every residual, and the cold descriptors allocated in
// between would scatter them over the heap.
#pragma once

#include <cstddef>

namespace endstop::core {

class Pooled {
public:
    static void* operator new(std::size_t size);
    static void operator delete(void* p, std::size_t size) noexcept;
};

}   // namespace endstop::core
