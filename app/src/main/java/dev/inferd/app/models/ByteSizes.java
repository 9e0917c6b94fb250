package dev.inferd.app.models;

import java.util.Locale;

/** Byte counts in decimal units, the way the Hugging Face pages show file sizes. */
public final class ByteSizes {
    private static final String[] UNITS = {"B", "kB", "MB", "GB", "TB"};

    private ByteSizes() {
    }

    /** "807.7 MB"; "?" for a negative (unknown) size. */
    public static String human(long bytes) {
        if (bytes < 0) {
            return "?";
        }
        if (bytes < 1000) {
            return bytes + " B";
        }
        double v = bytes;
        int unit = 0;
        while (v >= 999.95 && unit < UNITS.length - 1) {
            v /= 1000;
            unit++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, UNITS[unit]);
    }

    /** "1:05:09", "4:09", "0:07". */
    static String duration(long seconds) {
        long h = seconds / 3600;
        long m = seconds / 60 % 60;
        long s = seconds % 60;
        return h > 0 ? String.format(Locale.ROOT, "%d:%02d:%02d", h, m, s) : String.format(Locale.ROOT, "%d:%02d", m, s);
    }
}
