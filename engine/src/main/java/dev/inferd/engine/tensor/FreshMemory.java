package dev.inferd.engine.tensor;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

/**
 * Native memory for the copies of weights, handed out untouched. {@code Arena.allocate} zeroes what it
 * allocates on the calling thread: for the 1.4 GB of copies of a 1B Q8_0 file that was 3 of the 4.5 s
 * of its load, all of it overwritten by the fill that follows. On Linux the memory comes from an
 * anonymous {@code mmap} instead, whose pages the kernel zeroes as the fill first writes them, on the
 * worker threads that write them; elsewhere, or if the call fails, from an automatic arena.
 */
final class FreshMemory {
    private static final int PROT_READ_WRITE = 0x1 | 0x2;
    private static final int MAP_PRIVATE_ANONYMOUS = 0x02 | 0x20; // Linux's values
    private static final long MAP_FAILED = -1L;
    private static final MethodHandle MMAP;
    private static final MethodHandle MUNMAP;

    static {
        MethodHandle mmap = null, munmap = null;
        if (System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux")) {
            try {
                Linker linker = Linker.nativeLinker();
                var lookup = linker.defaultLookup();
                mmap = linker.downcallHandle(lookup.find("mmap").orElseThrow(), FunctionDescriptor.of(ValueLayout.ADDRESS,
                        ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                        ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
                munmap = linker.downcallHandle(lookup.find("munmap").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
            } catch (RuntimeException | LinkageError e) {
                mmap = null; // no native access: the arena's zeroed memory
                munmap = null;
            }
        }
        MMAP = mmap;
        MUNMAP = munmap;
    }

    private FreshMemory() {
    }

    /** {@code bytes} of native memory, page-aligned where mapped, freed once unreachable; its contents are zero. */
    static MemorySegment allocate(long bytes) {
        if (MMAP != null) {
            try {
                var at = (MemorySegment) MMAP.invokeExact(MemorySegment.NULL, bytes, PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS, -1, 0L);
                if (at.address() != MAP_FAILED) {
                    long address = at.address();
                    return at.reinterpret(bytes, Arena.ofAuto(), unused -> unmap(address, bytes));
                }
            } catch (Throwable e) {
                // fall through to the arena
            }
        }
        return Arena.ofAuto().allocate(bytes, 64);
    }

    private static void unmap(long address, long bytes) {
        try {
            int unused = (int) MUNMAP.invokeExact(MemorySegment.ofAddress(address), bytes);
        } catch (Throwable e) {
            throw new IllegalStateException("munmap failed", e);
        }
    }
}
