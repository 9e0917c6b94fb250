package dev.inferd.engine.tensor.copies;

import dev.inferd.engine.gguf.LinuxMemory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Native memory for the copies of weights, handed out untouched. {@code Arena.allocate} zeroes what it
 * allocates on the calling thread: for the 1.4 GB of copies of a 1B Q8_0 file that was 3 of the 4.5 s
 * of its load, all of it overwritten by the fill that follows. On Linux the memory comes from an
 * anonymous {@code mmap} instead, asked for in huge pages and populated at once ({@link LinuxMemory});
 * elsewhere, or if the call fails, from an automatic arena.
 *
 * <p>Populating matters in virtual machines such as this project's (2 cores): written page by page from
 * user space, 1.39 GB of fresh memory took 4.2-5.2 s to fault in (some 13 us per 4 KB page), where
 * {@code MADV_POPULATE_WRITE} over huge pages took 0.07-2.8 s, depending on how much of the memory the
 * host had to back anew (C and Java probes). Either advice failing (an older kernel, huge
 * pages off) leaves plain pages that fault in as they are first written.
 */
final class FreshMemory {
    private FreshMemory() {
    }

    /** {@code bytes} of native memory, page-aligned where mapped, freed once unreachable; its contents are zero. */
    static MemorySegment allocate(long bytes) {
        long address = LinuxMemory.mapAnonymous(bytes);
        if (address == 0) return Arena.ofAuto().allocate(bytes, 64);
        LinuxMemory.advise(address, bytes, LinuxMemory.HUGE_PAGES);
        LinuxMemory.advise(address, bytes, LinuxMemory.POPULATE_WRITE);
        return LinuxMemory.view(address, bytes, Arena.ofAuto());
    }
}
