package dev.inferd.server.cloud;

import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import dev.inferd.engine.Fixtures;
import dev.inferd.server.cloud.auth.Actor;
import dev.inferd.server.cloud.deploy.CloudDeployment;
import dev.inferd.server.http.ModelRegistry;
import dev.inferd.server.store.Account;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.TestDatabases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Cookie;
import org.openqa.selenium.TimeoutException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard in a real headless chromium: sign in, create a key (secret shown once), call the API with it,
 * see its usage and chart, rotate and revoke it, read the audit log; sessions in HttpOnly SameSite cookies, forms
 * refused without their CSRF token, another account's keys out of reach, sign-in attempts limited.
 * {@code scripts/test-browser.sh} installs chromium and its driver; without them the test is skipped.
 */
@Tag("slow")
class DashboardBrowserTest {

    private static final String PASSWORD = "correct horse battery";
    private static final java.util.logging.Logger JETTY_LOG = java.util.logging.Logger.getLogger("org.eclipse.jetty");
    private static final java.util.logging.Logger SELENIUM_LOG = java.util.logging.Logger.getLogger("org.openqa.selenium");

    static {
        JETTY_LOG.setLevel(java.util.logging.Level.WARNING);
        SELENIUM_LOG.setLevel(java.util.logging.Level.WARNING);
    }

    private static Database db;
    private static CloudDeployment cloud;
    private static WebDriver browser;
    private static Account alpha;

    @BeforeAll
    static void start() throws Exception {
        List<String> paths = installBrowser();
        db = TestDatabases.open(TestDatabases.SQLITE);
        var registry = new ModelRegistry();
        registry.ready("chat-model", new EchoModel("chat-model"));
        cloud = CloudDeployment.start("127.0.0.1", 0, db, CloudConfig.empty(), registry, Clock.systemUTC());
        var actor = new Actor("test", "junit");
        alpha = cloud.accounts().createAccount("alpha", actor);
        var beta = cloud.accounts().createAccount("beta", actor);
        cloud.accounts().addUser(alpha.id(), "ana@alpha.example", PASSWORD, actor);
        cloud.accounts().addUser(beta.id(), "bo@beta.example", PASSWORD, actor);

        var options = new ChromeOptions();
        options.setBinary(paths.get(0));
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu");
        var service = new ChromeDriverService.Builder().usingDriverExecutable(new File(paths.get(1))).usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
    }

    @AfterAll
    static void stop() {
        if (browser != null) browser.quit();
        if (cloud != null) cloud.close();
        if (db != null) db.close();
    }

    /** scripts/test-browser.sh's paths of the browser and its driver; skips the test when it cannot provide them. */
    private static List<String> installBrowser() throws Exception {
        List<String> paths = Fixtures.fromSetupScript("test-browser.sh", "no headless chromium and chromedriver");
        Fixtures.prerequisite(paths.size() == 2, "scripts/test-browser.sh printed " + paths);
        return paths;
    }

    private static String url(String path) {
        return "http://127.0.0.1:" + cloud.port() + path;
    }

    private static void signIn(String email, String password) {
        browser.manage().deleteAllCookies();
        browser.get(url("/dashboard"));
        assertThat(browser.getCurrentUrl()).endsWith("/dashboard/login");
        browser.findElement(By.id("email")).sendKeys(email);
        browser.findElement(By.id("password")).sendKeys(password);
        follow(browser.findElement(By.id("sign-in")));
    }

    /** Clicks a link or a form's button and waits for the page it loads. */
    private static void follow(WebElement element) {
        element.click();
        awaitNextPage(element);
    }

    /** Waits until the page that held {@code element} is gone: a submitted form's answer has loaded. */
    private static void awaitNextPage(WebElement element) {
        new WebDriverWait(browser, Duration.ofSeconds(10), Duration.ofMillis(20))
                .withMessage("the page did not change after the form was submitted").until(d -> {
                    try {
                        element.isEnabled();
                        return false;
                    } catch (WebDriverException e) {
                        // stale: Chrome says so as StaleElementReferenceException or, which Selenium's stalenessOf
                        // does not take for staleness, "does not belong to the document"
                        return true;
                    }
                });
    }

    /**
     * The key's row in the current page. Right after a form is submitted the old page may still be
     * there, or be replaced while it is read: the lookup is retried until the new page holds the row.
     */
    private static WebElement row(String keyName) {
        return pageWait().until(d -> d.findElements(By.cssSelector("#keys tr[data-key]")).stream()
                .filter(r -> r.findElement(By.className("name")).getText().equals(keyName)).findFirst().orElse(null));
    }

    /** Waits until the page that a form's submission loads shows the key in {@code state}. */
    private static void awaitState(String keyName, String state) {
        String[] seen = {null};
        try {
            pageWait().until(d -> state.equals(seen[0] = row(keyName).findElement(By.className("state")).getText()));
        } catch (TimeoutException e) {
            assertThat(seen[0]).as("state of key " + keyName).isEqualTo(state);
        }
    }

    /** Five seconds for a page's content, looked up again while the page is replaced under the lookup. */
    private static WebDriverWait pageWait() {
        var wait = new WebDriverWait(browser, Duration.ofSeconds(5), Duration.ofMillis(50));
        wait.ignoring(WebDriverException.class);
        return wait;
    }

    @Test
    void aUserManagesKeysAndSeesTheirUsage() throws Exception {
        signIn("ana@alpha.example", "wrong password");
        assertThat(browser.findElement(By.id("error")).getText()).contains("Wrong e-mail or password");
        signIn("ana@alpha.example", PASSWORD);
        assertThat(browser.getCurrentUrl()).endsWith("/dashboard/settings/api-keys");
        assertThat(browser.findElement(By.id("who")).getText()).isEqualTo("ana@alpha.example");

        Cookie session = browser.manage().getCookieNamed("inferd_session");
        assertThat(session.isHttpOnly()).isTrue();
        assertThat(session.getSameSite()).isEqualTo("Strict");

        browser.findElement(By.id("key-name")).sendKeys("browser-key");
        follow(browser.findElement(By.id("create-key")));
        String secret = browser.findElement(By.id("secret")).getText();
        assertThat(secret).matches("sk-[A-Za-z0-9_-]{43}");
        assertThat(browser.findElement(By.id("copy")).isDisplayed()).isTrue();
        browser.get(url("/dashboard/settings/api-keys"));
        assertThat(browser.findElements(By.id("secret"))).isEmpty(); // shown once
        assertThat(browser.getPageSource()).doesNotContain(secret);

        var client = OpenAIOkHttpClient.builder().baseUrl(url("/v1")).apiKey(secret).maxRetries(0).build();
        try {
            client.chat().completions().create(ChatCompletionCreateParams.builder().model("chat-model")
                    .addUserMessage("Tell me a story").build());
        } finally {
            client.close();
        }
        follow(row("browser-key").findElement(By.linkText("Usage")));
        assertThat(browser.findElement(By.cssSelector("#totals .requests")).getText()).isEqualTo("1");
        assertThat(browser.findElement(By.cssSelector("#totals .prompt")).getText()).isEqualTo("6");
        assertThat(browser.findElement(By.cssSelector("#totals .completion")).getText()).isEqualTo("3");
        assertThat(browser.findElements(By.cssSelector("#chart rect.bar"))).hasSize(1);
        String usagePage = browser.getCurrentUrl();

        // the account's usage page: across its keys, then for this key alone through the form
        follow(browser.findElement(By.id("nav-usage")));
        assertThat(browser.findElement(By.cssSelector("#range-totals .requests")).getText()).isEqualTo("1");
        assertThat(browser.findElement(By.cssSelector("#range-totals .prompt")).getText()).isEqualTo("6");
        assertThat(browser.findElement(By.cssSelector("#range-totals .completion")).getText()).isEqualTo("3");
        assertThat(browser.findElements(By.cssSelector("#chart-requests rect.bar"))).hasSize(1);
        assertThat(browser.findElements(By.cssSelector("#chart-tokens rect.bar"))).hasSize(2); // prompt and completion
        assertThat(browser.findElement(By.id("chart-requests")).isDisplayed()).isTrue();
        assertThat(browser.findElements(By.cssSelector("#per-key tr[data-key]"))).hasSize(1);
        browser.findElements(By.cssSelector("#key option")).stream().filter(o -> o.getText().startsWith("browser-key ("))
                .findFirst().orElseThrow().click();
        follow(browser.findElement(By.id("show")));
        assertThat(browser.getCurrentUrl()).contains("key=").contains("from=").contains("to=");
        assertThat(browser.findElement(By.cssSelector("#range-totals .requests")).getText()).isEqualTo("1");
        browser.get(url("/dashboard/usage?from=2020-01-01&to=2019-01-01"));
        assertThat(browser.getPageSource()).contains("before it starts");

        browser.get(url("/dashboard/settings/api-keys"));
        follow(row("browser-key").findElement(By.cssSelector("form.rotate button")));
        String rotated = browser.findElement(By.id("secret")).getText();
        assertThat(rotated).startsWith("sk-").isNotEqualTo(secret);
        follow(row("browser-key").findElement(By.cssSelector("form.revoke button")));
        awaitState("browser-key", "revoked");
        String audit = browser.findElement(By.id("audit")).getText();
        assertThat(audit).contains("key.create").contains("key.rotate").contains("key.revoke").contains("ana@alpha.example");

        // a form without its CSRF token is refused, even with the session cookie
        var http = HttpClient.newHttpClient();
        String keyId = row("browser-key").getAttribute("data-key");
        var forged = http.send(HttpRequest.newBuilder(URI.create(url("/dashboard/settings/api-keys/" + keyId + "/rotate")))
                .header("Cookie", "inferd_session=" + session.getValue())
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("grace_hours=0")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(forged.statusCode()).isEqualTo(403);

        // another account's user sees none of it
        signIn("bo@beta.example", PASSWORD);
        assertThat(browser.findElements(By.cssSelector("#keys tr[data-key]"))).isEmpty();
        assertThat(browser.getPageSource()).doesNotContain("browser-key").doesNotContain(keyId);
        browser.get(usagePage);
        assertThat(browser.getPageSource()).contains("Not found").doesNotContain("browser-key");
    }

    /**
     * Every button, and the header's text, against its background: at least 4.5:1 (WCAG AA for text) on the pages
     * that have them, measured in the browser from the computed colours.
     */
    @Test
    void buttonsAndTheHeaderAreLegible() {
        signIn("ana@alpha.example", PASSWORD);
        browser.findElement(By.id("key-name")).sendKeys("contrast-key");
        follow(browser.findElement(By.id("create-key"))); // the page with the new key's Copy button
        List<String> low = new java.util.ArrayList<>(lowContrast("button, header a, header span, header b, .muted, .error"));
        assertThat(browser.findElements(By.cssSelector("#sign-out, #copy, form.rotate button, form.revoke button, #create-key")))
                .hasSizeGreaterThanOrEqualTo(5);
        browser.get(url("/dashboard/usage"));
        low.addAll(lowContrast("button, header a, header span, .muted, svg text"));
        assertThat(low).isEmpty();
    }

    /** The elements matching {@code selector} whose text has less than 4.5:1 contrast against what is behind it. */
    @SuppressWarnings("unchecked")
    private static List<String> lowContrast(String selector) {
        String script = """
                const parse = c => { const p = c.match(/[\\d.]+/g).map(Number); return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1}; };
                const behind = el => {
                  for (; el; el = el.parentElement) {
                    const c = parse(getComputedStyle(el).backgroundColor);
                    if (c.a > 0) return c;
                  }
                  return {r: 255, g: 255, b: 255, a: 1};
                };
                const channel = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
                const luminance = c => 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b);
                const low = [];
                for (const el of document.querySelectorAll(arguments[0])) {
                  const style = getComputedStyle(el);
                  const fg = parse(el instanceof SVGElement ? style.fill : style.color);
                  const bg = behind(el instanceof SVGElement ? el.closest('section') : el);
                  const a = luminance(fg), b = luminance(bg);
                  const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
                  if (ratio < 4.5 && el.textContent.trim() !== '') low.push((el.id || el.textContent.trim()) + ': ' + ratio.toFixed(2));
                }
                return low;""";
        return (List<String>) ((org.openqa.selenium.JavascriptExecutor) browser).executeScript(script, selector);
    }

    @Test
    void signInAttemptsAreLimited() {
        for (int i = 0; i < 5; i++) signIn("nobody@alpha.example", "wrong password " + i);
        assertThat(browser.findElement(By.id("error")).getText()).contains("Wrong e-mail or password");
        signIn("nobody@alpha.example", "wrong password again");
        assertThat(browser.findElement(By.id("error")).getText()).contains("Too many sign-in attempts");
    }
}
