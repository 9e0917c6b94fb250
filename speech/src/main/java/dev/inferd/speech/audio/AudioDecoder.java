package dev.inferd.speech.audio;

import org.bytedeco.ffmpeg.avcodec.AVCodec;
import org.bytedeco.ffmpeg.avcodec.AVCodecContext;
import org.bytedeco.ffmpeg.avcodec.AVPacket;
import org.bytedeco.ffmpeg.avformat.AVFormatContext;
import org.bytedeco.ffmpeg.avformat.AVStream;
import org.bytedeco.ffmpeg.avutil.AVChannelLayout;
import org.bytedeco.ffmpeg.avutil.AVDictionary;
import org.bytedeco.ffmpeg.avutil.AVFrame;
import org.bytedeco.ffmpeg.swresample.SwrContext;
import org.bytedeco.javacpp.ShortPointer;
import org.bytedeco.javacpp.PointerPointer;

import java.time.Duration;
import java.util.Arrays;

import static org.bytedeco.ffmpeg.global.avcodec.*;
import static org.bytedeco.ffmpeg.global.avformat.*;
import static org.bytedeco.ffmpeg.global.avutil.*;
import static org.bytedeco.ffmpeg.global.swresample.*;

/**
 * Decodes an upload in any container FFmpeg knows (wav, mp3, flac, ogg, m4a, mp4, webm...) from
 * memory to {@link Audio}: the container is recognised from the bytes, never from a file name; the
 * best audio stream is decoded, mixed down to mono and resampled to 16 kHz by libswresample with its
 * default settings into 16-bit samples, then scaled by 1/32768: what Whisper's own loader gets from
 * {@code ffmpeg -f s16le -ac 1 -acodec pcm_s16le -ar 16000}. (With 16-bit output the resampler
 * normalises the down-mix, so stereo becomes the mean of its channels.)
 *
 * <p>Thread-safe: every call has contexts of its own.
 */
public final class AudioDecoder {

    /** The longest audio accepted by default: one hour (230 MB of samples). */
    public static final Duration DEFAULT_MAX_DURATION = Duration.ofHours(1);

    private static final int OUT_CHUNK = 16_384;
    /** libavformat's AVFMT_FLAG_CUSTOM_IO, which the bindings leave out: the caller owns the I/O context. */
    private static final int CUSTOM_IO = 0x0080;

    private final Duration maxDuration;
    private final long maxSamples;

    public AudioDecoder() {
        this(DEFAULT_MAX_DURATION);
    }

    public AudioDecoder(Duration maxDuration) {
        this.maxDuration = maxDuration;
        this.maxSamples = maxDuration.toMillis() * Audio.SAMPLE_RATE / 1000;
    }

    public Duration maxDuration() { return maxDuration; }

    /** The audio in {@code upload}, or an {@link InvalidAudioException} saying why there is none. */
    public Audio decode(byte[] upload) {
        if (upload.length == 0) throw new InvalidAudioException(InvalidAudioException.Reason.EMPTY, "The audio file is empty.");
        av_log_set_level(AV_LOG_QUIET);
        try (var input = new MemoryInput(upload)) {
            AVFormatContext format = avformat_alloc_context();
            format.pb(input.context());
            format.flags(format.flags() | CUSTOM_IO);
            if (avformat_open_input(format, (String) null, null, null) < 0) {
                // avformat_open_input frees the context on failure
                throw undecodable();
            }
            try {
                return decode(format);
            } finally {
                avformat_close_input(format);
            }
        }
    }

    private Audio decode(AVFormatContext format) {
        if (avformat_find_stream_info(format, (PointerPointer<?>) null) < 0) throw undecodable();
        int streamIndex = av_find_best_stream(format, AVMEDIA_TYPE_AUDIO, -1, -1, (AVCodec) null, 0);
        if (streamIndex < 0) {
            throw new InvalidAudioException(InvalidAudioException.Reason.NO_AUDIO_STREAM, "The file has no audio stream.");
        }
        AVStream stream = format.streams(streamIndex);
        AVCodec codec = avcodec_find_decoder(stream.codecpar().codec_id());
        if (codec == null || codec.isNull()) throw undecodable();
        AVCodecContext decoder = avcodec_alloc_context3(codec);
        try {
            if (avcodec_parameters_to_context(decoder, stream.codecpar()) < 0
                    || avcodec_open2(decoder, codec, (AVDictionary) null) < 0) {
                throw undecodable();
            }
            if (decoder.sample_rate() <= 0 || decoder.ch_layout().nb_channels() <= 0) throw undecodable();
            return new Resampled(decoder).run(format, streamIndex);
        } finally {
            avcodec_free_context(decoder);
        }
    }

    /** One decode: the packet loop, the decoder and the resampler, with the samples gathered so far. */
    private final class Resampled {
        private final AVCodecContext decoder;
        private final SwrContext swr;
        private final ShortPointer chunk = new ShortPointer(OUT_CHUNK);
        private final short[] pcm = new short[OUT_CHUNK];
        private final PointerPointer<ShortPointer> chunkPlanes = new PointerPointer<ShortPointer>(1L).put(0, chunk);
        private float[] samples = new float[Audio.SAMPLE_RATE * 30];
        private int count;

        Resampled(AVCodecContext decoder) {
            this.decoder = decoder;
            var mono = new AVChannelLayout();
            av_channel_layout_default(mono, 1);
            swr = swr_alloc();
            if (swr == null || swr.isNull()) throw new IllegalStateException("FFmpeg could not allocate a resampler");
            // given an allocated context, swr_alloc_set_opts2 sets its options in place
            if (swr_alloc_set_opts2(swr, mono, AV_SAMPLE_FMT_S16, Audio.SAMPLE_RATE,
                    decoder.ch_layout(), decoder.sample_fmt(), decoder.sample_rate(), 0, null) < 0) {
                swr_free(swr);
                throw undecodable();
            }
            av_channel_layout_uninit(mono);
            if (swr_init(swr) < 0) {
                swr_free(swr);
                throw undecodable();
            }
        }

        Audio run(AVFormatContext format, int streamIndex) {
            AVPacket packet = av_packet_alloc();
            AVFrame frame = av_frame_alloc();
            try {
                while (av_read_frame(format, packet) >= 0) {
                    try {
                        if (packet.stream_index() == streamIndex) {
                            if (avcodec_send_packet(decoder, packet) < 0) throw undecodable();
                            drain(frame);
                        }
                    } finally {
                        av_packet_unref(packet);
                    }
                }
                avcodec_send_packet(decoder, null);
                drain(frame);
                int n;
                while ((n = swr_convert(swr, chunkPlanes, OUT_CHUNK, (PointerPointer<?>) null, 0)) > 0) append(n);
            } finally {
                av_frame_free(frame);
                av_packet_free(packet);
                swr_free(swr);
                chunkPlanes.close();
                chunk.close();
            }
            if (count == 0) {
                throw new InvalidAudioException(InvalidAudioException.Reason.EMPTY, "The audio file contains no samples.");
            }
            return new Audio(Arrays.copyOf(samples, count));
        }

        private void drain(AVFrame frame) {
            while (true) {
                int r = avcodec_receive_frame(decoder, frame);
                if (r == AVERROR_EAGAIN() || r == AVERROR_EOF) return;
                if (r < 0) throw undecodable();
                int n = swr_convert(swr, chunkPlanes, OUT_CHUNK, frame.extended_data(), frame.nb_samples());
                if (n < 0) throw undecodable();
                append(n);
                // the resampler may hold more than one chunk's worth after a long frame
                while (n == OUT_CHUNK) {
                    n = swr_convert(swr, chunkPlanes, OUT_CHUNK, (PointerPointer<?>) null, 0);
                    if (n < 0) throw undecodable();
                    append(n);
                }
                av_frame_unref(frame);
            }
        }

        private void append(int n) {
            if (count + (long) n > maxSamples) {
                throw new InvalidAudioException(InvalidAudioException.Reason.TOO_LONG,
                        "The audio is longer than the maximum of " + maxDuration.toSeconds() + " seconds.");
            }
            if (count + n > samples.length) samples = Arrays.copyOf(samples, Math.max(count + n, samples.length * 2));
            chunk.get(pcm, 0, n);
            for (int i = 0; i < n; i++) samples[count + i] = pcm[i] / 32768f;
            count += n;
        }
    }

    private static InvalidAudioException undecodable() {
        return new InvalidAudioException(InvalidAudioException.Reason.UNDECODABLE,
                "The file could not be decoded as audio. Supported formats: flac, m4a, mp3, mp4, mpeg, mpga, oga, ogg, wav, webm.");
    }
}
