package dev.inferd.speech.audio;

import org.bytedeco.ffmpeg.avformat.AVIOContext;
import org.bytedeco.ffmpeg.avformat.Read_packet_Pointer_BytePointer_int;
import org.bytedeco.ffmpeg.avformat.Seek_Pointer_long_int;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.LongPointer;
import org.bytedeco.javacpp.Pointer;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import static org.bytedeco.ffmpeg.global.avformat.AVSEEK_SIZE;
import static org.bytedeco.ffmpeg.global.avformat.avio_alloc_context;
import static org.bytedeco.ffmpeg.global.avformat.avio_context_free;
import static org.bytedeco.ffmpeg.global.avutil.AVERROR_EOF;
import static org.bytedeco.ffmpeg.global.avutil.av_free;
import static org.bytedeco.ffmpeg.global.avutil.av_malloc;

/**
 * An FFmpeg I/O context that reads a byte array, so uploads are probed and decoded without a file.
 *
 * <p>JavaCPP keeps a small fixed number of native thunks per callback class, so there is one reader
 * and one seeker for the whole process; the context's {@code opaque} pointer holds an id that finds
 * the array of the call in progress.
 */
final class MemoryInput implements AutoCloseable {
    private static final int BUFFER_SIZE = 32 * 1024;
    private static final int SEEK_SET = 0, SEEK_CUR = 1, SEEK_END = 2;
    private static final Map<Long, MemoryInput> OPEN = new ConcurrentHashMap<>();
    private static final AtomicLong IDS = new AtomicLong();

    private static final Read_packet_Pointer_BytePointer_int READER = new Read_packet_Pointer_BytePointer_int() {
        @Override
        public int call(Pointer opaque, BytePointer buf, int size) {
            MemoryInput in = OPEN.get(new LongPointer(opaque).get());
            return in == null ? AVERROR_EOF : in.read(buf, size);
        }
    };

    private static final Seek_Pointer_long_int SEEKER = new Seek_Pointer_long_int() {
        @Override
        public long call(Pointer opaque, long offset, int whence) {
            MemoryInput in = OPEN.get(new LongPointer(opaque).get());
            return in == null ? -1 : in.seek(offset, whence);
        }
    };

    private final byte[] data;
    private final long id = IDS.incrementAndGet();
    private final LongPointer opaque = new LongPointer(1);
    private final AVIOContext context;
    private int position;

    MemoryInput(byte[] data) {
        this.data = data;
        opaque.put(0, id);
        OPEN.put(id, this);
        BytePointer buffer = new BytePointer(av_malloc(BUFFER_SIZE)).capacity(BUFFER_SIZE);
        context = avio_alloc_context(buffer, BUFFER_SIZE, 0, opaque, READER, null, SEEKER);
        if (context == null || context.isNull()) {
            av_free(buffer);
            OPEN.remove(id);
            throw new IllegalStateException("FFmpeg could not allocate an I/O context");
        }
    }

    AVIOContext context() { return context; }

    private int read(BytePointer buf, int size) {
        int n = Math.min(size, data.length - position);
        if (n <= 0) return AVERROR_EOF;
        buf.position(0).capacity(size).put(data, position, n);
        position += n;
        return n;
    }

    private long seek(long offset, int whence) {
        if ((whence & AVSEEK_SIZE) != 0) return data.length;
        long target = switch (whence & 3) {
            case SEEK_SET -> offset;
            case SEEK_CUR -> position + offset;
            case SEEK_END -> data.length + offset;
            default -> -1;
        };
        if (target < 0 || target > data.length) return -1;
        position = (int) target;
        return target;
    }

    @Override
    public void close() {
        OPEN.remove(id);
        // the buffer may have been replaced by FFmpeg; free whatever the context holds now
        av_free(context.buffer());
        context.buffer(null);
        avio_context_free(context);
        opaque.close();
    }
}
