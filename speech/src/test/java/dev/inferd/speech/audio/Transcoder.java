package dev.inferd.speech.audio;

import org.bytedeco.ffmpeg.avcodec.AVCodec;
import org.bytedeco.ffmpeg.avcodec.AVCodecContext;
import org.bytedeco.ffmpeg.avcodec.AVPacket;
import org.bytedeco.ffmpeg.avformat.AVFormatContext;
import org.bytedeco.ffmpeg.avformat.AVIOContext;
import org.bytedeco.ffmpeg.avformat.AVStream;
import org.bytedeco.ffmpeg.avutil.AVDictionary;
import org.bytedeco.ffmpeg.avutil.AVFrame;
import org.bytedeco.ffmpeg.avutil.AVRational;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.ShortPointer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.bytedeco.ffmpeg.global.avcodec.*;
import static org.bytedeco.ffmpeg.global.avformat.*;
import static org.bytedeco.ffmpeg.global.avutil.*;

/**
 * Encodes 16 kHz mono audio into another container with the same FFmpeg libraries the decoder
 * uses, so tests can upload m4a, webm and mp4 made from the fixtures. Empty when this FFmpeg build
 * has none of the encoders asked for.
 */
final class Transcoder {
    private Transcoder() {
    }

    /** A container and the encoders to try for it, in order. */
    record Target(String muxer, String extension, List<String> encoders) {
        static final Target M4A = new Target("ipod", "m4a", List.of("aac"));
        static final Target MP4 = new Target("mp4", "mp4", List.of("aac"));
        static final Target WEBM = new Target("webm", "webm", List.of("libopus", "libvorbis", "opus", "vorbis"));
        static final Target OGG = new Target("ogg", "ogg", List.of("libvorbis", "libopus", "vorbis", "opus"));
    }

    static Optional<byte[]> encode(Audio audio, Target target, Path dir) throws IOException {
        for (String name : target.encoders()) {
            AVCodec codec = avcodec_find_encoder_by_name(name);
            if (codec == null || codec.isNull()) continue;
            for (int rate : new int[]{16_000, 48_000}) {
                for (int format : new int[]{AV_SAMPLE_FMT_FLTP, AV_SAMPLE_FMT_FLT, AV_SAMPLE_FMT_S16}) {
                    Path out = dir.resolve("clip-" + name + "-" + rate + "-" + format + "." + target.extension());
                    if (write(audio, target, codec, rate, format, out)) return Optional.of(Files.readAllBytes(out));
                }
            }
        }
        return Optional.empty();
    }

    /** False when the encoder refuses this rate or sample format. Resampling to 48 kHz repeats samples: enough for a test. */
    private static boolean write(Audio audio, Target target, AVCodec codec, int rate, int sampleFormat, Path out) {
        AVCodecContext encoder = avcodec_alloc_context3(codec);
        AVFormatContext muxer = new AVFormatContext(null);
        try {
            if (avformat_alloc_output_context2(muxer, null, target.muxer(), (String) null) < 0) return false;
            encoder.sample_rate(rate);
            encoder.sample_fmt(sampleFormat);
            av_channel_layout_default(encoder.ch_layout(), 1);
            encoder.bit_rate(64_000);
            encoder.time_base(av_make_q(1, rate));
            if ((muxer.oformat().flags() & AVFMT_GLOBALHEADER) != 0) encoder.flags(encoder.flags() | AV_CODEC_FLAG_GLOBAL_HEADER);
            if (avcodec_open2(encoder, codec, (AVDictionary) null) < 0) return false;
            AVStream stream = avformat_new_stream(muxer, null);
            avcodec_parameters_from_context(stream.codecpar(), encoder);
            stream.time_base(encoder.time_base());
            AVIOContext io = new AVIOContext(null);
            if (avio_open(io, out.toString(), AVIO_FLAG_WRITE) < 0) return false;
            muxer.pb(io);
            if (avformat_write_header(muxer, (AVDictionary) null) < 0) return false;
            int repeat = rate / Audio.SAMPLE_RATE;
            float[] samples = audio.samples();
            int total = samples.length * repeat;
            int frameSize = encoder.frame_size() > 0 ? encoder.frame_size() : 960;
            AVFrame frame = av_frame_alloc();
            AVPacket packet = av_packet_alloc();
            for (int start = 0; start < total; start += frameSize) {
                int n = Math.min(frameSize, total - start);
                frame.nb_samples(n);
                frame.format(sampleFormat);
                frame.sample_rate(rate);
                av_channel_layout_default(frame.ch_layout(), 1);
                if (av_frame_get_buffer(frame, 0) < 0) return false;
                if (sampleFormat == AV_SAMPLE_FMT_S16) {
                    var dst = new ShortPointer(frame.data(0)).capacity(n);
                    for (int i = 0; i < n; i++) dst.put(i, (short) Math.round(Math.clamp(samples[(start + i) / repeat], -1f, 1f) * 32767));
                } else {
                    var dst = new FloatPointer(frame.data(0)).capacity(n);
                    for (int i = 0; i < n; i++) dst.put(i, samples[(start + i) / repeat]);
                }
                frame.pts(start);
                if (avcodec_send_frame(encoder, frame) < 0) return false;
                av_frame_unref(frame);
                writePackets(encoder, muxer, stream, packet);
            }
            avcodec_send_frame(encoder, null);
            writePackets(encoder, muxer, stream, packet);
            av_write_trailer(muxer);
            av_packet_free(packet);
            av_frame_free(frame);
            avio_closep(muxer.pb());
            return true;
        } finally {
            avcodec_free_context(encoder);
            if (!muxer.isNull()) avformat_free_context(muxer);
        }
    }

    private static void writePackets(AVCodecContext encoder, AVFormatContext muxer, AVStream stream, AVPacket packet) {
        while (avcodec_receive_packet(encoder, packet) >= 0) {
            AVRational from = encoder.time_base();
            av_packet_rescale_ts(packet, from, stream.time_base());
            packet.stream_index(stream.index());
            av_interleaved_write_frame(muxer, packet);
        }
    }
}
