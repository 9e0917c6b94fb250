package dev.inferd.engine.gguf;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The Linux memory calls the engine makes through the foreign linker ({@code open}, {@code close},
 * {@code mmap}, {@code munmap}, {@code madvise}, {@code mremap}), with Linux's constants; on another system, or without
 * native access, each reports failure and the callers fall back to what the JDK offers.
 */
public final class LinuxMemory {
    /** {@code madvise}: back the range with transparent huge pages where the system allows them. */
    public static final int HUGE_PAGES = 14;
    /**
     * {@code madvise} (Linux 5.14): fault every page of the range in, writable, as a write to each would;
     * in a private file mapping that gives every page its own anonymous copy.
     */
    public static final int POPULATE_WRITE = 23;
    /** {@code madvise}: let the range's pages go; a private mapping's read again from its file. */
    public static final int DONT_NEED = 4;

    private static final int PROT_NONE = 0;
    private static final int PROT_READ_WRITE = 0x1 | 0x2;
    private static final int MAP_PRIVATE = 0x02;
    private static final int MAP_FIXED = 0x10;
    private static final int MREMAP_MAYMOVE_FIXED = 0x1 | 0x2;
    /** A transparent huge page: mappings start on one so that their huge pages can move whole ({@link #replaceWithHugePages}). */
    private static final long HUGE_PAGE = 2L << 20;
    private static final long PAGE = 4096;
    private static final int MAP_PRIVATE_ANONYMOUS = MAP_PRIVATE | 0x20;
    private static final int O_RDONLY_CLOEXEC = 0x80000; // O_RDONLY is 0
    private static final long MAP_FAILED = -1L;
    /** Memory left available beyond what {@link #hasRoomFor} is asked about. */
    private static final long SPARE_MEMORY = 512L << 20;
    private static final MethodHandle MMAP;
    private static final MethodHandle MUNMAP;
    private static final MethodHandle MADVISE;
    private static final MethodHandle OPEN;
    private static final MethodHandle CLOSE;
    private static final MethodHandle MREMAP;

    static {
        MethodHandle mmap = null, munmap = null, madvise = null, open = null, close = null, mremap = null;
        if (System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux")) {
            try {
                Linker linker = Linker.nativeLinker();
                var lookup = linker.defaultLookup();
                mmap = linker.downcallHandle(lookup.find("mmap").orElseThrow(), FunctionDescriptor.of(ValueLayout.ADDRESS,
                        ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                        ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
                munmap = linker.downcallHandle(lookup.find("munmap").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
                madvise = linker.downcallHandle(lookup.find("madvise").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
                // open(2) is variadic: called with its two fixed arguments only
                open = linker.downcallHandle(lookup.find("open").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT), Linker.Option.firstVariadicArg(2));
                close = linker.downcallHandle(lookup.find("close").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
                // mremap(2) is variadic: the new address is its fifth argument
                mremap = linker.downcallHandle(lookup.find("mremap").orElseThrow(), FunctionDescriptor.of(ValueLayout.ADDRESS,
                        ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS),
                        Linker.Option.firstVariadicArg(4));
            } catch (RuntimeException | LinkageError e) {
                mmap = munmap = madvise = open = close = mremap = null; // no native access
            }
        }
        MMAP = mmap;
        MUNMAP = munmap;
        MADVISE = madvise;
        OPEN = open;
        CLOSE = close;
        MREMAP = mremap;
    }

    private LinuxMemory() {
    }

    /** The address of {@code bytes} of fresh anonymous memory, zero until written, or 0 if there is none. */
    public static long mapAnonymous(long bytes) {
        if (MMAP == null) return 0;
        try {
            var at = (MemorySegment) MMAP.invokeExact(MemorySegment.NULL, bytes, PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS, -1, 0L);
            return at.address() == MAP_FAILED ? 0 : at.address();
        } catch (Throwable e) {
            return 0;
        }
    }

    /**
     * The address of a private (copy-on-write) mapping of the first {@code bytes} of {@code file}, readable
     * and writable, or 0 if there is none. Writes stay in this process, and {@link #POPULATE_WRITE} gives its
     * pages copies of their own; the file is opened read-only, as the JDK cannot map a file privately
     * without opening it for writing.
     *
     * <p>One such mapping a process: the model file's ({@code GGUFFile}). A second one, even of 64 MB never read
     * or unmapped at once, made the 1B Q4_0 decode 12-15% slower on an Intel Xeon, for a reason not
     * found; the JDK's own mappings did not (see {@code CopyCacheFile}, which therefore maps the copy cache
     * with the JDK's read-only mapping and comes here only where that misses a huge page's boundary).
     */
    public static long mapPrivate(Path file, long bytes) {
        if (MMAP == null || OPEN == null || bytes <= 0) return 0;
        try (Arena arena = Arena.ofConfined()) {
            int fd = (int) OPEN.invokeExact(arena.allocateFrom(file.toString()), O_RDONLY_CLOEXEC);
            if (fd < 0) return 0;
            try {
                // on a huge page's boundary, so that replaceWithHugePages can move huge pages there whole
                long at = reserveAligned(bytes);
                if (at == 0) return 0;
                var mapped = (MemorySegment) MMAP.invokeExact(MemorySegment.ofAddress(at), bytes, PROT_READ_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0L);
                if (mapped.address() == MAP_FAILED) {
                    unmap(at, bytes);
                    return 0;
                }
                return at;
            } finally {
                int unused = (int) CLOSE.invokeExact(fd); // the mapping keeps the file
            }
        } catch (Throwable e) {
            return 0;
        }
    }

    /** Whether {@code address} is on a transparent huge page's boundary, as {@link #replaceWithHugePages} needs. */
    public static boolean startsHugePage(long address) {
        return address % HUGE_PAGE == 0;
    }

    /**
     * Gives the {@code bytes} of a file mapped at {@code address} (by {@link #mapPrivate}, or read-only) anonymous memory of their own in
     * transparent huge pages, with the same contents: fresh memory is advised to huge pages, filled from the range and
     * moved over it ({@code mremap}, which replaces the file's mapping at once, so that threads reading the range
     * meet the same bytes throughout). Returns false, the range as it was, where any step fails. Why: {@link
     * #POPULATE_WRITE} on the file's mapping gives every page its own copy, but in 4 KB pages, the only kind a file's
     * private mapping has; decoding read them 18% slower than the same copies in huge pages (a 1B Q4_0 on
     * an Intel Xeon: 20.7-21.5 against 25.3-26.0 tokens a second), the misses in the address translation's cache.
     */
    public static boolean replaceWithHugePages(long address, long bytes) {
        if (MREMAP == null || !startsHugePage(address)) return false;
        long length = (bytes + PAGE - 1) / PAGE * PAGE;
        long fresh = reserveAligned(length);
        if (fresh == 0) return false;
        try {
            var anonymous = (MemorySegment) MMAP.invokeExact(MemorySegment.ofAddress(fresh), length, PROT_READ_WRITE,
                    MAP_PRIVATE_ANONYMOUS | MAP_FIXED, -1, 0L);
            if (anonymous.address() == MAP_FAILED) {
                unmap(fresh, length);
                return false;
            }
            advise(fresh, length, HUGE_PAGES);
            advise(fresh, length, POPULATE_WRITE);
            MemorySegment.copy(MemorySegment.ofAddress(address).reinterpret(bytes), 0, MemorySegment.ofAddress(fresh).reinterpret(bytes), 0, bytes);
            var moved = (MemorySegment) MREMAP.invokeExact(MemorySegment.ofAddress(fresh), length, length, MREMAP_MAYMOVE_FIXED,
                    MemorySegment.ofAddress(address));
            if (moved.address() != address) {
                unmap(fresh, length);
                return false;
            }
            return true;
        } catch (Throwable e) {
            unmap(fresh, length);
            return false;
        }
    }

    /**
     * The address of {@code bytes} of address space starting on a huge page's boundary, reserved (no access) for a
     * fixed mapping over it, or 0: a reservation one huge page longer, its ends past the boundaries given back.
     */
    private static long reserveAligned(long bytes) {
        try {
            long length = (bytes + PAGE - 1) / PAGE * PAGE;
            var reserved = (MemorySegment) MMAP.invokeExact(MemorySegment.NULL, length + HUGE_PAGE, PROT_NONE, MAP_PRIVATE_ANONYMOUS, -1, 0L);
            long start = reserved.address();
            if (start == MAP_FAILED) return 0;
            long aligned = (start + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
            if (aligned > start) unmap(start, aligned - start);
            long end = start + length + HUGE_PAGE;
            if (end > aligned + length) unmap(aligned + length, end - aligned - length);
            return aligned;
        } catch (Throwable e) {
            return 0;
        }
    }

    /**
     * A native view of the {@code bytes} mapped at {@code address} by {@link #mapAnonymous} or
     * {@link #mapPrivate}, unmapped when {@code arena} closes (an automatic one: once unreachable).
     */
    public static MemorySegment view(long address, long bytes, Arena arena) {
        return MemorySegment.ofAddress(address).reinterpret(bytes, arena, unused -> unmap(address, bytes));
    }

    private static void unmap(long address, long bytes) {
        try {
            int unused = (int) MUNMAP.invokeExact(MemorySegment.ofAddress(address), bytes);
        } catch (Throwable e) {
            throw new IllegalStateException("munmap failed", e);
        }
    }

    /** {@code madvise(address, bytes, advice)}; whether the system took it (false where it has no such advice). */
    public static boolean advise(long address, long bytes, int advice) {
        if (MADVISE == null) return false;
        try {
            return (int) MADVISE.invokeExact(MemorySegment.ofAddress(address), bytes, advice) == 0;
        } catch (Throwable e) {
            return false;
        }
    }

    /**
     * Whether the system has {@code bytes} available and 512 MB more, or does not say: asked before mapped
     * pages, which it could let go under memory pressure, are moved into memory that it cannot, so that a
     * system short of memory does not swap or end a process (this one, likely) instead.
     */
    public static boolean hasRoomFor(long bytes) {
        long available = availableBytes();
        return available < 0 || available >= bytes + SPARE_MEMORY;
    }

    /** Bytes the system can give without swapping ({@code MemAvailable} of {@code /proc/meminfo}), or -1 if unknown. */
    static long availableBytes() {
        try {
            return availableBytes(Files.readAllLines(Path.of("/proc/meminfo")));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** {@code MemAvailable} in bytes from the lines of {@code /proc/meminfo} ({@code "MemAvailable:  123 kB"}), or -1. */
    static long availableBytes(List<String> meminfo) {
        for (String line : meminfo) {
            String[] parts = line.trim().split("\\s+");
            if (parts.length == 3 && parts[0].equals("MemAvailable:") && parts[2].equals("kB")) {
                return Long.parseLong(parts[1]) * 1024;
            }
        }
        return -1;
    }
}
