package dev.inferd.engine.tensor.copies;

import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.gguf.LinuxMemory;
import dev.inferd.engine.gguf.TensorInfo;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The interleaved copies of one model file's matrices ({@link InterleavedRows}), kept in a cache file
 * so that the next load maps them instead of building them: the copies of a 1B Q4_K_M file took 3.5 s
 * of its start on this project's 2-core machine, and in memory they were resident beside the mapped
 * file. Mapped from the cache, the model's pages of the copied matrices are never read; once the server
 * is up, {@link #moveIntoMemory} gives the mapped pages anonymous copies, which decode faster.
 *
 * <p>The file is {@value #MAGIC_TEXT}, then little-endian: the format version, the rows in a group of
 * the copies' layout ({@link InterleavedRows#GROUP}: a cache made on a machine of another vector width
 * is rebuilt), the model file's path
 * (length and UTF-8 bytes), size and modification time, the count of copies and, per copy, its tensor
 * name (length and UTF-8 bytes), offset and length; then the copies, each at a page boundary. A load uses the cache only when that
 * header is byte for byte the one this version would write for the model file as it is now; anything
 * else (another model file at that path, a changed copy layout, a torn file) and the copies are built
 * in memory and {@link #save}d over it.
 *
 * <p>Saving writes a temporary file in the cache directory, forces it to disk and renames it into
 * place, so a reader never meets a partial cache, and two servers loading one model at once each
 * write their own and the last rename wins. It first clears the directory of caches no load will use
 * again: those whose model file is gone or has changed, those of another format, and temporary files
 * a killed process left a day or more ago.
 */
public final class CopyCacheFile implements CopyStore {
    private static final String MAGIC_TEXT = "INFERD-COPIES\n";
    private static final byte[] MAGIC = MAGIC_TEXT.getBytes(StandardCharsets.US_ASCII);
    /** Bumped with any change to a copy's layout or to this file's: an older cache is then rebuilt. */
    static final int FORMAT = 10;
    /** Temporary files older than this were left by a process that died while saving. */
    private static final java.time.Duration ABANDONED = java.time.Duration.ofDays(1);
    private static final long PAGE = 4096;
    /** Room left on the disk beyond the cache itself, or it is not written. */
    private static final long SPARE_DISK = 1L << 30;
    /** Bytes per write: a ByteBuffer view of native memory is limited to 2 GB. */
    private static final int WRITE_CHUNK = 64 << 20;

    private final Path file;
    /** The copies' layout variant on this machine ({@link CopyLayout#variant}). */
    private final int variant;
    private final Map<String, Long> offsets = new LinkedHashMap<>();
    private final Map<String, Long> sizes = new LinkedHashMap<>();
    private final byte[] header;
    private final long fileSize;
    /** The cache's copies, mapped; null when there was no usable cache. */
    private final MemorySegment mapped;
    /** The copies built by this load, to be saved. */
    private final Map<String, MemorySegment> built = new LinkedHashMap<>();

    private CopyCacheFile(Path file, Map<String, Long> sizes, int variant, Path source, long sourceSize, long sourceModified) {
        this.variant = variant;
        this.file = file;
        this.sizes.putAll(sizes);
        var names = new ByteBuffer[sizes.size()];
        ByteBuffer sourceName = StandardCharsets.UTF_8.encode(source.toString());
        int headerBytes = MAGIC.length + 3 * Integer.BYTES + sourceName.remaining() + 2 * Long.BYTES + Integer.BYTES;
        int i = 0;
        for (String name : sizes.keySet()) {
            names[i] = StandardCharsets.UTF_8.encode(name);
            headerBytes += Integer.BYTES + names[i++].remaining() + 2 * Long.BYTES;
        }
        long at = align(headerBytes);
        for (var e : sizes.entrySet()) {
            offsets.put(e.getKey(), at);
            at = align(at + e.getValue());
        }
        this.fileSize = at;
        var h = ByteBuffer.allocate(headerBytes).order(ByteOrder.LITTLE_ENDIAN);
        h.put(MAGIC).putInt(FORMAT).putInt(variant).putInt(sourceName.remaining()).put(sourceName)
                .putLong(sourceSize).putLong(sourceModified).putInt(sizes.size());
        i = 0;
        for (String name : sizes.keySet()) {
            h.putInt(names[i].remaining()).put(names[i++]).putLong(offsets.get(name)).putLong(sizes.get(name));
        }
        this.header = h.array();
        this.mapped = mapIfCurrent();
    }

    /**
     * The cache of {@code gguf}'s copies in {@code directory}, mapped when it holds this version's copies
     * of the file as it is now, else empty until {@link #save}. A cache that cannot be read counts as
     * none; one that cannot be written says so when saved.
     */
    public static CopyCacheFile open(Path directory, GGUFFile gguf, CopyLayout layout) throws IOException {
        var sizes = new LinkedHashMap<String, Long>();
        for (TensorInfo t : gguf.tensors().values()) {
            long bytes = layout.copyBytes(t);
            if (bytes > 0) sizes.put(t.name(), bytes);
        }
        Path source = gguf.path().toAbsolutePath().normalize();
        String name = source.getFileName().toString().replaceFirst("\\.gguf$", "");
        Path file = directory.resolve(name + "-" + pathHash(source) + ".copies");
        return new CopyCacheFile(file, sizes, layout.variant(), source, Files.size(source), Files.getLastModifiedTime(source).toMillis());
    }

    /** Where the cache is (or will be saved). */
    public Path file() {
        return file;
    }

    /** Whether this load reads its copies from the cache rather than building them. */
    public boolean reused() {
        return mapped != null;
    }

    /** Bytes of all the copies. */
    public long copyBytes() {
        return sizes.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Whether this load builds copies that the cache does not hold yet: what {@link #save} is for. */
    public boolean needsSaving() {
        return mapped == null && !sizes.isEmpty();
    }

    @Override
    public Slot slot(String tensor, long bytes) {
        Long size = sizes.get(tensor);
        if (mapped != null && size != null && size == bytes) {
            return new Slot(mapped.asSlice(offsets.get(tensor), bytes), true);
        }
        MemorySegment memory = CopyStore.inMemory().slot(tensor, bytes).memory();
        if (size != null && size == bytes) built.put(tensor, memory);
        return new Slot(memory, false);
    }

    /**
     * Gives the mapped copies anonymous memory of their own, in place: the same bytes at the same addresses,
     * so that kernels reading them meanwhile read the same values ({@link LinuxMemory#replaceWithHugePages};
     * where that fails and the mapping is the private one, {@code MADV_POPULATE_WRITE} over it). Returns
     * whether it did; false where this load built its copies, the system has no room for them ({@link
     * LinuxMemory#hasRoomFor}), or it has no such calls (not Linux, or before 5.14): the copies then stay
     * mapped from the page cache.
     *
     * <p>Why: on this project's machine a process's mapped file pages that went unread for
     * 0.05-2 s read back at 3-7 GB/s instead of 25-35 (a streaming pass over the 1B Q8_0's copies, no page
     * fault counted), while anonymous pages read at full speed after any pause. That machine runs DAMON's
     * physical-address monitoring ({@code kdamond}, sampling every 500 ms); with it switched off, mapped
     * pages read at full speed too. Decoding reads each copy once per token, 25-50 ms apart for a 1B
     * model, and the copies read from such a mapping decoded slower than the same copies built in memory.
     * Decoding the 1B Q8_0, alternated: 13-21 t/s mapped, 26-27 moved. Moving takes 0.7-3.8 s for its
     * 1.39 GB (as long as the host takes to back fresh memory), so the server does it after it is ready
     * ({@code serve}) and {@code bench} before it measures.
     *
     * <p>The copies move into fresh memory in transparent huge pages, filled from the mapping and
     * moved over it in one call ({@link LinuxMemory#replaceWithHugePages}): the advice gave them 4 KB pages, and
     * the 1B Q4_0 decoded 18% slower from those than from copies built in memory. The advice stays the fallback.
     */
    public boolean moveIntoMemory() {
        if (mapped == null || !LinuxMemory.hasRoomFor(mapped.byteSize())) return false;
        return LinuxMemory.replaceWithHugePages(mapped.address(), mapped.byteSize())
                || LinuxMemory.advise(mapped.address(), mapped.byteSize(), LinuxMemory.POPULATE_WRITE);
    }

    /**
     * Writes the copies this load built to the cache, once every copy the model file gets was built
     * (a cache that was used, or a model loaded in part, writes nothing). Returns whether it wrote.
     *
     * @throws IOException when it cannot be written (no room, no permission): the load goes on without
     */
    public boolean save() throws IOException {
        if (!needsSaving() || !built.keySet().equals(sizes.keySet())) return false;
        Path dir = file.getParent();
        Files.createDirectories(dir);
        prune(dir, variant);
        long free = Files.getFileStore(dir).getUsableSpace();
        if (free < fileSize + SPARE_DISK) {
            throw new IOException("only " + (free >> 20) + " MB free in " + dir + ", the cache takes " + (fileSize >> 20) + " MB");
        }
        Path partial = Files.createTempFile(dir, file.getFileName().toString(), ".partial");
        partial.toFile().deleteOnExit(); // if the process ends mid-write
        try {
            try (var ch = FileChannel.open(partial, StandardOpenOption.WRITE)) {
                writeFully(ch, ByteBuffer.wrap(header), 0);
                for (var e : built.entrySet()) {
                    MemorySegment copy = e.getValue();
                    long at = offsets.get(e.getKey());
                    for (long done = 0; done < copy.byteSize(); done += WRITE_CHUNK) {
                        long n = Math.min(WRITE_CHUNK, copy.byteSize() - done);
                        writeFully(ch, copy.asSlice(done, n).asByteBuffer(), at + done);
                    }
                }
                if (ch.size() < fileSize) writeFully(ch, ByteBuffer.allocate(1), fileSize - 1); // the last copy's page padding
                ch.force(true);
            }
            try {
                Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING);
            }
            return true;
        } finally {
            Files.deleteIfExists(partial);
        }
    }

    /**
     * The cache's copies through a native view of its mapping, or null unless its header is this load's.
     * The mapping is the JDK's read-only one. Where that does not start on a huge page's boundary, which
     * {@link #moveIntoMemory} needs to move the copies in huge pages, the mapping is a private
     * (copy-on-write) one placed there ({@link LinuxMemory#mapPrivate}), whose pages the fallback advice
     * can copy in 4 KB pages.
     *
     * <p>Why not the private one: with it, the 1B Q4_0 decoded 12-14% slower
     * than with the read-only one (24.4-24.5 t/s against 28.0, alternated), although after the move both
     * read the same anonymous huge pages; copies built in memory decoded as slowly beside a second private
     * mapping made with {@code mapPrivate} (of any file, 64 MB of it, never read, even unmapped again), and
     * at full speed beside an anonymous one of 700 MB or the JDK's mapping of the same file. The cause, in
     * the kernel or the host, was not found; the model file's own private mapping costs nothing measurable.
     */
    private MemorySegment mapIfCurrent() {
        try (var ch = FileChannel.open(file, StandardOpenOption.READ)) {
            if (ch.size() != fileSize) return null;
            var found = ByteBuffer.allocate(header.length);
            while (found.hasRemaining() && ch.read(found, found.position()) > 0) {
                // read on
            }
            if (!Arrays.equals(found.array(), header)) return null;
            // an automatic arena: the mapping lasts while any matrix's view of it is reachable (one left unused
            // is unmapped once collected). Read through a plain native view, as the model file is
            // (GGUFFile.open), so that the kernels meet one segment class.
            Arena arena = Arena.ofAuto();
            MemorySegment mapping = ch.map(FileChannel.MapMode.READ_ONLY, 0, fileSize, arena);
            if (!LinuxMemory.startsHugePage(mapping.address())) {
                long address = LinuxMemory.mapPrivate(file, fileSize);
                if (address != 0) return LinuxMemory.view(address, fileSize, Arena.ofAuto());
            }
            return MemorySegment.ofAddress(mapping.address()).reinterpret(fileSize, arena, null);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException | UnsupportedOperationException e) {
            return null; // unreadable: built again, and the save says what is wrong
        }
    }

    /**
     * Deletes from {@code directory} the caches no load will use again (see the class comment); a file it
     * cannot read or delete stays; {@code variant} is this machine's layout variant. Returns how many it deleted.
     */
    static int prune(Path directory, int variant) throws IOException {
        int deleted = 0;
        try (var files = Files.list(directory)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                String name = f.getFileName().toString();
                boolean stale = name.endsWith(".copies") ? !usable(f, variant)
                        : name.endsWith(".partial") && Files.getLastModifiedTime(f).toInstant()
                                .isBefore(java.time.Instant.now().minus(ABANDONED));
                if (stale && Files.deleteIfExists(f)) deleted++;
            }
        }
        return deleted;
    }

    /** Whether the cache {@code f} is of this format and layout and its model file is still there as it was. */
    private static boolean usable(Path f, int variant) {
        try (var ch = FileChannel.open(f, StandardOpenOption.READ)) {
            var h = ByteBuffer.allocate((int) Math.min(ch.size(), PAGE)).order(ByteOrder.LITTLE_ENDIAN);
            while (h.hasRemaining() && ch.read(h, h.position()) > 0) {
                // read on
            }
            h.flip();
            byte[] magic = new byte[MAGIC.length];
            if (h.remaining() < MAGIC.length + 3 * Integer.BYTES) return false;
            h.get(magic);
            if (!Arrays.equals(magic, MAGIC) || h.getInt() != FORMAT || h.getInt() != variant) return false;
            int length = h.getInt();
            if (length < 0 || h.remaining() < length + 2 * Long.BYTES) return false;
            byte[] path = new byte[length];
            h.get(path);
            Path source = Path.of(new String(path, StandardCharsets.UTF_8));
            long size = h.getLong(), modified = h.getLong();
            return Files.isRegularFile(source) && Files.size(source) == size
                    && Files.getLastModifiedTime(source).toMillis() == modified;
        } catch (IOException | RuntimeException e) {
            return true; // unreadable now: left alone rather than deleted on a guess
        }
    }

    private static void writeFully(FileChannel ch, ByteBuffer bytes, long at) throws IOException {
        while (bytes.hasRemaining()) at += ch.write(bytes, at);
    }

    private static long align(long at) {
        return (at + PAGE - 1) / PAGE * PAGE;
    }

    /** Sixteen hex digits of the model path's SHA-256: models of one name in two folders get two caches. */
    private static String pathHash(Path source) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(source.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
