package dev.inferd.speech.whisper;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.ZipInputStream;

/** Reads the little-endian float32 arrays of a numpy .npz (a zip of .npy files), flattened, by name. */
final class Npz {
    private Npz() {
    }

    static Map<String, float[]> read(Path npz) throws IOException {
        var out = new HashMap<String, float[]>();
        try (InputStream in = Files.newInputStream(npz); var zip = new ZipInputStream(in)) {
            for (var e = zip.getNextEntry(); e != null; e = zip.getNextEntry()) {
                byte[] npy = zip.readAllBytes();
                var b = ByteBuffer.wrap(npy).order(ByteOrder.LITTLE_ENDIAN);
                int major = npy[6];
                int headerLength = major == 1 ? Short.toUnsignedInt(b.getShort(8)) : b.getInt(8);
                int start = (major == 1 ? 10 : 12) + headerLength;
                String header = new String(npy, major == 1 ? 10 : 12, headerLength, StandardCharsets.US_ASCII);
                if (!header.contains("'<f4'") || header.contains("'fortran_order': True")) {
                    throw new IOException(e.getName() + ": only C-ordered little-endian float32 arrays are read, got " + header);
                }
                float[] values = new float[(npy.length - start) / 4];
                b.position(start);
                b.asFloatBuffer().get(values);
                out.put(e.getName().replaceFirst("\\.npy$", ""), values);
            }
        }
        return out;
    }
}
