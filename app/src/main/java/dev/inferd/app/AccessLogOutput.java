package dev.inferd.app;

import java.time.Instant;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Prints the server's access log ({@code inferd.access}) to standard error as one line per request,
 * a timestamp and the entry, instead of the JDK's default two-line records.
 */
final class AccessLogOutput {

    /** A strong reference, so that the logger and its handler are not collected. */
    private static final Logger ACCESS = Logger.getLogger("inferd.access");

    private AccessLogOutput() {
    }

    static void install() {
        if (ACCESS.getHandlers().length > 0) return;
        ACCESS.setUseParentHandlers(false);
        ACCESS.addHandler(new Handler() {
            private final Formatter format = new Formatter() {
                @Override
                public String format(LogRecord record) {
                    return Instant.ofEpochMilli(record.getMillis()) + " " + formatMessage(record) + "\n";
                }
            };

            @Override
            public void publish(LogRecord record) {
                if (!isLoggable(record)) return;
                System.err.print(format.format(record));
                System.err.flush();
            }

            @Override
            public void flush() {
                System.err.flush();
            }

            @Override
            public void close() {
                flush();
            }
        });
    }
}
