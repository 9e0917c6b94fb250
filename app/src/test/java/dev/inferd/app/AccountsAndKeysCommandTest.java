package dev.inferd.app;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code inferd accounts} and {@code inferd keys} against one SQLite file. */
class AccountsAndKeysCommandTest {
    @TempDir
    Path dir;

    record Run(int exit, String out, String err) {
        List<String> lines() {
            return out.lines().toList();
        }
    }

    private Run run(String stdin, String... args) {
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        PrintStream savedOut = System.out;
        PrintStream savedErr = System.err;
        InputStream savedIn = System.in;
        System.setOut(new PrintStream(out, true, UTF_8));
        System.setErr(new PrintStream(err, true, UTF_8));
        System.setIn(new ByteArrayInputStream(stdin.getBytes(UTF_8)));
        try {
            String[] all = new String[args.length + 2];
            System.arraycopy(args, 0, all, 0, args.length);
            all[args.length] = "--database";
            all[args.length + 1] = "jdbc:sqlite:" + dir.resolve("cloud.db");
            int exit = new CommandLine(new Main()).execute(all);
            return new Run(exit, out.toString(UTF_8), err.toString(UTF_8));
        } finally {
            System.setOut(savedOut);
            System.setErr(savedErr);
            System.setIn(savedIn);
        }
    }

    @Test
    void createsAnAccountAndAKeyWhoseSecretIsPrintedOnceOnItsOwnLine() {
        assertThat(run("", "accounts", "create", "acme").exit()).isZero();
        assertThat(run("", "accounts", "list").out()).contains("acme");

        Run created = run("", "keys", "create", "--account", "acme", "--name", "ci", "--models", "m1,m2", "--expires", "2099-01-01");
        assertThat(created.exit()).isZero();
        List<String> secrets = created.lines().stream().filter(l -> l.startsWith("sk-")).toList();
        assertThat(secrets).hasSize(1);
        String secret = secrets.getFirst();
        assertThat(secret).matches("sk-[A-Za-z0-9_-]{43}");

        Run listed = run("", "keys", "list", "--account", "acme");
        assertThat(listed.out()).contains("ci").contains(secret.substring(0, 9) + "...").contains("models=m1,m2")
                .contains("2099-01-02T00:00:00Z").doesNotContain(secret); // valid through 2099-01-01, UTC
        String keyId = listed.lines().get(1).split("\\s+")[0];

        Run rotated = run("", "keys", "rotate", "--account", "acme", keyId, "--grace", "PT0S");
        assertThat(rotated.exit()).isZero();
        assertThat(rotated.lines().stream().filter(l -> l.startsWith("sk-")).toList()).hasSize(1).doesNotContain(secret);
        assertThat(run("", "keys", "revoke", "--account", "acme", keyId).exit()).isZero();
        assertThat(run("", "keys", "list", "--account", "acme").out()).contains("revoked");
        assertThat(run("", "keys", "usage", "--account", "acme").out()).contains("total");
        assertThat(run("", "keys", "usage", "--account", "acme", "--csv").out()).startsWith("time,id,key_id");
    }

    @Test
    void aKeyIsRevokedByItsIdAloneAndAGivenAccountMustHoldIt() {
        run("", "accounts", "create", "acme");
        run("", "accounts", "create", "other");
        run("", "keys", "create", "--account", "acme", "--name", "a");
        run("", "keys", "create", "--account", "acme", "--name", "b");
        List<String> ids = run("", "keys", "list", "--account", "acme").lines().stream().skip(1)
                .map(l -> l.split("\\s+")[0]).toList();

        Run wrongAccount = run("", "keys", "revoke", "--account", "other", ids.get(0));
        assertThat(wrongAccount.exit()).isEqualTo(1);
        assertThat(wrongAccount.err()).contains("no key " + ids.get(0));
        Run unknown = run("", "keys", "revoke", "key_nosuch");
        assertThat(unknown.exit()).isEqualTo(1);
        assertThat(unknown.err()).contains("no key key_nosuch");

        Run revoked = run("", "keys", "revoke", ids.get(0));
        assertThat(revoked.exit()).isZero();
        assertThat(revoked.out()).contains("Revoked " + ids.get(0));
        assertThat(run("", "keys", "revoke", "--account", "acme", ids.get(1)).exit()).isZero();
        assertThat(run("", "keys", "list", "--account", "acme").lines().stream().skip(1))
                .allSatisfy(line -> assertThat(line).contains("revoked"));
    }

    @Test
    void mistakesAreOneLineMessages() {
        Run missing = run("", "keys", "create", "--account", "nobody");
        assertThat(missing.exit()).isEqualTo(1);
        assertThat(missing.err()).contains("no account nobody");
        run("", "accounts", "create", "acme");
        Run twice = run("", "accounts", "create", "acme");
        assertThat(twice.exit()).isEqualTo(1);
        assertThat(twice.err()).contains("exists already");
        assertThat(run("short\n", "accounts", "add-user", "--account", "acme", "--email", "a@example.com").err())
                .contains("at least 8 characters");
        assertThat(run("long-enough-password\n", "accounts", "add-user", "--account", "acme", "--email", "a@example.com").exit())
                .isZero();
    }

    @Test
    void aFailedCommandChangesNothingAndSaysWhyInOneLine() {
        Run zero = run("", "accounts", "create", "acme", "--rate-limit", "0");
        assertThat(zero.exit()).isEqualTo(1);
        assertThat(zero.err()).contains("a rate limit is 1 to 100000").doesNotContain("Exception").doesNotContain("\tat ");
        assertThat(run("", "accounts", "list").out()).doesNotContain("acme");
        assertThat(run("", "accounts", "create", "acme", "--rate-limit", "5").exit()).isZero();
        assertThat(run("", "accounts", "list").out()).contains("acme");

        String longEmail = "a".repeat(400) + "@example.com";
        Run email = run("long-enough-password\n", "accounts", "add-user", "--account", "acme", "--email", longEmail);
        assertThat(email.exit()).isEqualTo(1);
        assertThat(email.err().strip()).isEqualTo("inferd: an e-mail address may have at most 254 characters");

        Run created = run("", "keys", "create", "--account", "acme", "--name", "ci");
        String keyId = run("", "keys", "list", "--account", "acme").lines().get(1).split("\\s+")[0];
        assertThat(created.exit()).isZero();
        Run huge = run("", "keys", "rotate", "--account", "acme", keyId, "--grace", "PT2562047788015215H");
        assertThat(huge.exit()).isEqualTo(1);
        assertThat(huge.err().strip()).isEqualTo("inferd: a grace period is 0 to 365 days (8760 hours)");
        assertThat(huge.out()).doesNotContain("sk-");

        Run badDate = run("", "keys", "create", "--account", "acme", "--name", "x", "--expires", "2027-02-30");
        assertThat(badDate.exit()).isEqualTo(1);
        assertThat(badDate.err()).contains("not a date").doesNotContain("Exception");
        assertThat(run("", "keys", "create", "--account", "acme", "--name", "x", "--expires", "garbage").err())
                .contains("an expiry is a date (2027-01-31)");
        assertThat(run("", "keys", "create", "--account", "acme", "--name", "x", "--rate-limit", "0").err())
                .contains("a rate limit is 1 to 100000");
        assertThat(run("", "keys", "list", "--account", "acme").lines()).hasSize(2); // nothing made by the refused ones
    }

    @Test
    void anExpiryDateIsValidThroughItsLastDayInUtcAndAPastOneIsRefused() {
        run("", "accounts", "create", "acme");
        java.time.LocalDate today = java.time.LocalDate.now(java.time.ZoneOffset.UTC);
        Run todays = run("", "keys", "create", "--account", "acme", "--name", "today", "--expires", today.toString());
        assertThat(todays.exit()).as(todays.err()).isZero();
        assertThat(run("", "keys", "list", "--account", "acme").out()).contains("active")
                .contains(today.plusDays(1) + "T00:00:00Z");

        Run yesterday = run("", "keys", "create", "--account", "acme", "--name", "old", "--expires", today.minusDays(1).toString());
        assertThat(yesterday.exit()).isEqualTo(1);
        assertThat(yesterday.err()).contains("already past").contains("valid through its last day, UTC");
        assertThat(run("", "keys", "create", "--help").out()).contains("valid through that whole day in UTC");
        assertThat(run("", "keys", "create", "--account", "acme", "--name", "far", "--expires", today.plusYears(101).toString()).err())
                .contains("at most 100 years ahead");
    }
}
