package dev.inferd.engine.gguf;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A GGUF (v2 or v3) file, memory-mapped. Metadata is parsed eagerly; tensor data stays in the
 * mapping and {@link #tensorData} hands out views over it, so a model is never copied into the heap.
 *
 * <p>Metadata values are normalised to: {@code Integer} (u8, i8, u16, i16, i32), {@code Long} (u32,
 * i64, u64), {@code Float}, {@code Double}, {@code Boolean}, {@code String}, and for arrays
 * {@code byte[]} (u8/i8), {@code short[]}, {@code int[]} (i32/u32), {@code long[]}, {@code float[]},
 * {@code double[]}, {@code boolean[]}, {@code String[]}, or {@code Object[]} for arrays of arrays.
 */
public final class GGUFFile implements AutoCloseable {
    public static final int MAGIC = 0x46554747; // "GGUF" little-endian
    public static final int DEFAULT_ALIGNMENT = 32;

    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED;
    /** Where pages are larger, the advice over 4 KB boundaries fails and the weights stay mapped. */
    private static final long PAGE = 4096;

    private final Path path;
    private final Arena arena;
    private final MemorySegment file;
    /**
     * The JDK's read-only mapping, for {@link #release} (the file is read through a native view of it);
     * null where the file is mapped privately through {@link LinuxMemory}.
     */
    private final MemorySegment mapping;
    /** Tensors read from copies from now on ({@link #release}), which {@link #moveIntoMemory} leaves out. */
    private final Set<String> released = ConcurrentHashMap.newKeySet();
    private final int version;
    private final Map<String, Object> metadata;
    private final Map<String, TensorInfo> tensors;
    private final long dataOffset;

    private long pos; // parse cursor, used only while opening

    private GGUFFile(Path path, Arena arena, MemorySegment mapping, MemorySegment file) {
        this.path = path;
        this.arena = arena;
        this.mapping = mapping;
        this.file = file;
        if (file.byteSize() < 16 || file.get(I32, 0) != MAGIC) {
            throw new GGUFFormatException(path + " is not a GGUF file (bad magic)");
        }
        version = file.get(I32, 4);
        if (version != 2 && version != 3) {
            throw new GGUFFormatException(path + ": GGUF version " + version + " is not supported (2 and 3 are)");
        }
        pos = 8;
        long tensorCount = readU64();
        long kvCount = readU64();
        var meta = new LinkedHashMap<String, Object>();
        for (long i = 0; i < kvCount; i++) {
            String key = readString();
            int type = readI32();
            meta.put(key, readValue(type));
        }
        metadata = Collections.unmodifiableMap(meta);
        var infos = new LinkedHashMap<String, TensorInfo>();
        for (long i = 0; i < tensorCount; i++) {
            String name = readString();
            int nDims = readI32();
            if (nDims < 1 || nDims > 8) throw new GGUFFormatException("tensor " + name + " has " + nDims + " dims");
            long[] dims = new long[nDims];
            for (int d = 0; d < nDims; d++) dims[d] = readU64();
            GGMLType type = GGMLType.fromId(readI32());
            long offset = readU64();
            infos.put(name, new TensorInfo(name, dims, type, offset));
        }
        tensors = Collections.unmodifiableMap(infos);
        int alignment = metadata.get("general.alignment") instanceof Number n ? n.intValue() : DEFAULT_ALIGNMENT;
        dataOffset = (pos + alignment - 1) / alignment * alignment;
        for (TensorInfo t : tensors.values()) {
            if (dataOffset + t.offset() + t.byteSize() > file.byteSize()) {
                throw new GGUFFormatException(path + ": tensor " + t.name() + " runs past the end of the file (truncated download?)");
            }
        }
    }

    /**
     * Maps {@code path} and parses its header. On Linux the mapping is private (copy-on-write), so that
     * {@link #moveIntoMemory} can give the pages of the weights read in place copies of their own;
     * elsewhere, or if that fails, it is the JDK's read-only mapping.
     */
    public static GGUFFile open(Path path) throws IOException {
        Arena arena = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            long size = ch.size();
            long address = LinuxMemory.mapPrivate(path, size);
            if (address != 0) {
                return new GGUFFile(path, arena, null, LinuxMemory.view(address, size, arena));
            }
            MemorySegment mapped = ch.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
            // read through a plain native view of the same pages: the kernels' vector loads are compiled
            // for the segment classes they have met, and with the mapping's own class beside the native
            // copies of InterleavedRows every load took a class check and a session check that C2 kept
            // inside the loop (a kernel fell to a third of its speed)
            MemorySegment view = MemorySegment.ofAddress(mapped.address()).reinterpret(mapped.byteSize(), arena, null);
            return new GGUFFile(path, arena, mapped, view);
        } catch (IOException | RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    public Path path() { return path; }

    public int version() { return version; }

    public long fileSize() { return file.byteSize(); }

    public Map<String, Object> metadata() { return metadata; }

    public Map<String, TensorInfo> tensors() { return tensors; }

    public TensorInfo tensor(String name) {
        TensorInfo t = tensors.get(name);
        if (t == null) throw new GGUFFormatException(path.getFileName() + " has no tensor " + name);
        return t;
    }

    /** The bytes of a tensor, a view into the mapping. */
    public MemorySegment tensorData(TensorInfo t) {
        return file.asSlice(dataOffset + t.offset(), t.byteSize());
    }

    public MemorySegment tensorData(String name) {
        return tensorData(tensor(name));
    }

    /**
     * Lets the pages of tensor {@code t} go from this process's memory (MADV_DONTNEED, whole pages, so
     * a neighbour's edge may go too): for a tensor that is read from a copy from now on. A later read
     * finds the pages again, from the page cache or the disk; {@link #moveIntoMemory} leaves it out.
     */
    public void release(TensorInfo t) {
        released.add(t.name());
        if (mapping != null) {
            mapping.asSlice(dataOffset + t.offset(), t.byteSize()).unload();
        } else {
            advisePages(dataOffset + t.offset(), t.byteSize(), LinuxMemory.DONT_NEED);
        }
    }

    /**
     * Gives the pages of every tensor not {@link #release}d (the weights read in place) copies of their
     * own in this process's anonymous memory ({@code MADV_POPULATE_WRITE} over the private mapping, the
     * same bytes at the same addresses), and returns how many bytes that took; 0 where the file is mapped
     * read-only, the system lacks the advice, or it has no room for them ({@link LinuxMemory#hasRoomFor}). Why: see {@code CopyCacheFile.moveIntoMemory}, which does the same for the copies (* the 1B Q5_K_M, 544 MB of it read in place, decoded at 5.6-8.2 t/s moved against 4.4-7.2 mapped).
     */
    public long moveIntoMemory() {
        if (mapping != null) return 0;
        long bytes = 0;
        for (TensorInfo t : tensors.values()) if (!released.contains(t.name())) bytes += t.byteSize();
        if (bytes == 0 || !LinuxMemory.hasRoomFor(bytes)) return 0;
        for (TensorInfo t : tensors.values()) {
            if (released.contains(t.name())) continue;
            if (!advisePages(dataOffset + t.offset(), t.byteSize(), LinuxMemory.POPULATE_WRITE)) return 0;
        }
        return bytes;
    }

    /** {@code madvise} over the whole pages that hold bytes {@code [at, at + bytes)} of the file. */
    private boolean advisePages(long at, long bytes, int advice) {
        long first = at / PAGE * PAGE;
        long end = Math.min(file.byteSize(), (at + bytes + PAGE - 1) / PAGE * PAGE);
        return LinuxMemory.advise(file.address() + first, end - first, advice);
    }

    // ---- typed metadata access ----

    public boolean has(String key) { return metadata.containsKey(key); }

    public String getString(String key, String fallback) {
        return metadata.get(key) instanceof String s ? s : fallback;
    }

    public long getLong(String key, long fallback) {
        return metadata.get(key) instanceof Number n ? n.longValue() : fallback;
    }

    public int getInt(String key, int fallback) {
        return metadata.get(key) instanceof Number n ? Math.toIntExact(n.longValue()) : fallback;
    }

    public float getFloat(String key, float fallback) {
        return metadata.get(key) instanceof Number n ? n.floatValue() : fallback;
    }

    public boolean getBoolean(String key, boolean fallback) {
        return metadata.get(key) instanceof Boolean b ? b : fallback;
    }

    /** The model's architecture name ({@code general.architecture}). */
    public String architecture() {
        return getString("general.architecture", "unknown");
    }

    @Override
    public void close() {
        arena.close();
    }

    // ---- parsing ----

    private int readI32() {
        int v = file.get(I32, pos);
        pos += 4;
        return v;
    }

    private long readU64() {
        long v = file.get(I64, pos);
        pos += 8;
        if (v < 0) throw new GGUFFormatException("count or size out of range at byte " + (pos - 8));
        return v;
    }

    private String readString() {
        long len = readU64();
        if (len > file.byteSize() - pos) throw new GGUFFormatException("string runs past the end of the file");
        if (len > Integer.MAX_VALUE - 8) throw new GGUFFormatException("string of " + len + " bytes");
        byte[] b = new byte[(int) len];
        MemorySegment.copy(file, ValueLayout.JAVA_BYTE, pos, b, 0, b.length);
        pos += len;
        return new String(b, StandardCharsets.UTF_8);
    }

    private Object readValue(int type) {
        return switch (type) {
            case 0 -> { int v = Byte.toUnsignedInt(file.get(ValueLayout.JAVA_BYTE, pos)); pos += 1; yield v; }
            case 1 -> { int v = file.get(ValueLayout.JAVA_BYTE, pos); pos += 1; yield v; }
            case 2 -> { int v = Short.toUnsignedInt(file.get(I16, pos)); pos += 2; yield v; }
            case 3 -> { int v = file.get(I16, pos); pos += 2; yield v; }
            case 4 -> Integer.toUnsignedLong(readI32());
            case 5 -> readI32();
            case 6 -> { float v = file.get(F32, pos); pos += 4; yield v; }
            case 7 -> { boolean v = file.get(ValueLayout.JAVA_BYTE, pos) != 0; pos += 1; yield v; }
            case 8 -> readString();
            case 9 -> readArray();
            case 10, 11 -> { long v = file.get(I64, pos); pos += 8; yield v; }
            case 12 -> { double v = file.get(F64, pos); pos += 8; yield v; }
            default -> throw new GGUFFormatException("unknown metadata value type " + type);
        };
    }

    private Object readArray() {
        int type = readI32();
        long count = readU64();
        if (count > Integer.MAX_VALUE - 8) throw new GGUFFormatException("array of " + count + " items");
        int n = (int) count;
        // primitive arrays in one copy each: element by element, a 128k-entry vocabulary's scores and
        // types were a good part of parsing in a cold JVM
        return switch (type) {
            case 0, 1 -> copy(ValueLayout.JAVA_BYTE, new byte[n], n);
            case 2, 3 -> copy(I16, new short[n], n);
            case 4, 5 -> copy(I32, new int[n], n);
            case 6 -> copy(F32, new float[n], n);
            case 10, 11 -> copy(I64, new long[n], n);
            case 12 -> copy(F64, new double[n], n);
            case 7 -> {
                boolean[] a = new boolean[n];
                for (int i = 0; i < n; i++, pos += 1) a[i] = file.get(ValueLayout.JAVA_BYTE, pos) != 0;
                yield a;
            }
            case 8 -> {
                String[] a = new String[n];
                for (int i = 0; i < n; i++) a[i] = readString();
                yield a;
            }
            case 9 -> {
                Object[] a = new Object[n];
                for (int i = 0; i < n; i++) a[i] = readArray();
                yield a;
            }
            default -> throw new GGUFFormatException("unknown array item type " + type);
        };
    }

    /** The next {@code n} items into {@code array} (a primitive array of the layout's type). */
    private Object copy(ValueLayout layout, Object array, int n) {
        long bytes = n * layout.byteSize();
        if (bytes > file.byteSize() - pos) throw new GGUFFormatException("array runs past the end of the file");
        MemorySegment.copy(file, layout, pos, array, 0, n);
        pos += bytes;
        return array;
    }
}
