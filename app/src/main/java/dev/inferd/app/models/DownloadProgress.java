package dev.inferd.app.models;

import java.io.PrintStream;
import java.time.Duration;
import java.util.function.Function;

/** Tells the person waiting how a download goes. Called from the downloading thread only. */
public interface DownloadProgress {
    DownloadProgress NONE = new DownloadProgress() {
        @Override
        public void started(String name, long totalBytes, long resumedAt) {
        }

        @Override
        public void transferred(long bytesSoFar) {
        }

        @Override
        public void finished(long bytes) {
        }

        @Override
        public void retrying(String why, Duration wait) {
        }
    };

    /** A transfer of {@code name} begins; {@code totalBytes} is -1 when unknown, {@code resumedAt} the bytes already on disk. */
    void started(String name, long totalBytes, long resumedAt);

    /** {@code bytesSoFar} bytes of the file are on disk now (including those resumed from). */
    void transferred(long bytesSoFar);

    void finished(long bytes);

    /** A transient failure; the next try starts after {@code wait}. */
    void retrying(String why, Duration wait);

    /**
     * A redrawn progress bar when {@code out} is a person's terminal, otherwise plain lines every
     * few seconds (logs and CI do not render carriage returns).
     */
    static DownloadProgress to(PrintStream out, boolean terminal) {
        return terminal ? new TerminalProgressBar(out, System::nanoTime) : new PeriodicProgressLog(out, System::nanoTime);
    }

    /** Whether this process talks to a terminal and does not run under CI (which sets {@code CI}). */
    static boolean isInteractive(Function<String, String> env) {
        var console = System.console();
        String ci = env.apply("CI");
        return console != null && console.isTerminal() && (ci == null || ci.isBlank() || ci.equalsIgnoreCase("false"));
    }
}
