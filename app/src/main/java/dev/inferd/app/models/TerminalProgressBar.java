package dev.inferd.app.models;

import java.io.PrintStream;
import java.time.Duration;
import java.util.function.LongSupplier;

/** One line redrawn in place with a carriage return: bar, bytes, percentage, speed and time left. */
final class TerminalProgressBar implements DownloadProgress {
    private static final long REDRAW_EVERY_NANOS = 100_000_000L;
    private static final int BAR_WIDTH = 24;

    private final PrintStream out;
    private final LongSupplier nanoClock;
    private final TransferRate rate;
    private String name = "";
    private long lastDraw = Long.MIN_VALUE;
    private int lastWidth;

    TerminalProgressBar(PrintStream out, LongSupplier nanoClock) {
        this.out = out;
        this.nanoClock = nanoClock;
        this.rate = new TransferRate(nanoClock);
    }

    @Override
    public void started(String name, long totalBytes, long resumedAt) {
        this.name = name;
        rate.start(totalBytes, resumedAt);
        if (resumedAt > 0) {
            out.println("resuming " + name + " at " + ByteSizes.human(resumedAt));
        }
        draw();
    }

    @Override
    public void transferred(long bytesSoFar) {
        rate.current = bytesSoFar;
        long now = nanoClock.getAsLong();
        if (now - lastDraw >= REDRAW_EVERY_NANOS) {
            draw();
        }
    }

    @Override
    public void finished(long bytes) {
        rate.current = bytes;
        draw();
        out.println();
    }

    @Override
    public void retrying(String why, Duration wait) {
        out.println();
        out.println(why + "; retrying in " + ByteSizes.duration(Math.max(1, wait.toSeconds())));
    }

    String line() {
        int pct = rate.percent();
        var sb = new StringBuilder(name).append(' ');
        if (pct >= 0) {
            int filled = pct * BAR_WIDTH / 100;
            sb.append('[').append("=".repeat(filled)).append(" ".repeat(BAR_WIDTH - filled)).append("] ")
                    .append(String.format("%3d%% ", pct));
        }
        sb.append(ByteSizes.human(rate.current));
        if (rate.total >= 0) {
            sb.append(" / ").append(ByteSizes.human(rate.total));
        }
        sb.append("  ").append(ByteSizes.human((long) rate.bytesPerSecond())).append("/s");
        long left = rate.secondsLeft();
        if (left >= 0) {
            sb.append("  ").append(ByteSizes.duration(left)).append(" left");
        }
        return sb.toString();
    }

    private void draw() {
        lastDraw = nanoClock.getAsLong();
        String line = line();
        // Pad over the tail of a longer previous line.
        out.print("\r" + line + " ".repeat(Math.max(0, lastWidth - line.length())));
        out.flush();
        lastWidth = line.length();
    }
}
