package dev.inferd.app.models;

import java.io.PrintStream;
import java.time.Duration;
import java.util.function.LongSupplier;

/** Plain lines for logs: one every 5 seconds or every 10 percent, whichever comes first. */
final class PeriodicProgressLog implements DownloadProgress {
    static final long EVERY_NANOS = 5_000_000_000L;

    private final PrintStream out;
    private final LongSupplier nanoClock;
    private final TransferRate rate;
    private String name = "";
    private long lastLine;
    private int lastTenth;

    PeriodicProgressLog(PrintStream out, LongSupplier nanoClock) {
        this.out = out;
        this.nanoClock = nanoClock;
        this.rate = new TransferRate(nanoClock);
    }

    @Override
    public void started(String name, long totalBytes, long resumedAt) {
        this.name = name;
        rate.start(totalBytes, resumedAt);
        lastLine = nanoClock.getAsLong();
        lastTenth = Math.max(0, rate.percent()) / 10;
        out.println((resumedAt > 0 ? "resuming " + name + " at " + ByteSizes.human(resumedAt) : "downloading " + name)
                + (totalBytes >= 0 ? " (" + ByteSizes.human(totalBytes) + ")" : ""));
    }

    @Override
    public void transferred(long bytesSoFar) {
        rate.current = bytesSoFar;
        long now = nanoClock.getAsLong();
        int tenth = Math.max(0, rate.percent()) / 10;
        if (now - lastLine >= EVERY_NANOS || tenth > lastTenth && rate.current < rate.total) {
            lastLine = now;
            lastTenth = tenth;
            out.println(line());
        }
    }

    @Override
    public void finished(long bytes) {
        rate.current = bytes;
        out.println(name + ": done, " + ByteSizes.human(bytes));
    }

    @Override
    public void retrying(String why, Duration wait) {
        out.println(why + "; retrying in " + ByteSizes.duration(Math.max(1, wait.toSeconds())));
    }

    String line() {
        var sb = new StringBuilder(name).append(": ");
        int pct = rate.percent();
        if (pct >= 0) {
            sb.append(pct).append("% (").append(ByteSizes.human(rate.current)).append(" of ")
                    .append(ByteSizes.human(rate.total)).append(')');
        } else {
            sb.append(ByteSizes.human(rate.current));
        }
        sb.append(", ").append(ByteSizes.human((long) rate.bytesPerSecond())).append("/s");
        long left = rate.secondsLeft();
        if (left >= 0) {
            sb.append(", ").append(ByteSizes.duration(left)).append(" left");
        }
        return sb.toString();
    }
}
