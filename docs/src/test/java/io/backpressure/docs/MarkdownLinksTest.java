package io.backpressure.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.commonmark.ext.gfm.tables.TablesExtension;
import org.commonmark.node.AbstractVisitor;
import org.commonmark.node.Code;
import org.commonmark.node.Heading;
import org.commonmark.node.HtmlBlock;
import org.commonmark.node.HtmlInline;
import org.commonmark.node.Image;
import org.commonmark.node.Link;
import org.commonmark.node.Node;
import org.commonmark.node.SoftLineBreak;
import org.commonmark.node.Text;
import org.commonmark.parser.IncludeSourceSpans;
import org.commonmark.parser.Parser;
import org.junit.jupiter.api.Test;

/**
 * No link of the README, the changelog, the guide ({@code docs/*.md}) or a module's README leads
 * nowhere. A relative link must name a file or directory of the repository; its {@code #anchor}, on
 * a Markdown page, must be one of that page's headings as GitHub names them (or an HTML {@code id}
 * or {@code name} on it), and on any other file a line ({@code #L12}, {@code #L12-L20}) that the
 * file has. Links with a scheme ({@code https:}, {@code mailto:}) are not followed. The pages are
 * read by commonmark-java, so a link inside a code block or a code span is not a link, as on
 * GitHub.
 */
class MarkdownLinksTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Parser PARSER =
      Parser.builder()
          .extensions(List.of(TablesExtension.create()))
          .includeSourceSpans(IncludeSourceSpans.BLOCKS_AND_INLINES)
          .build();
  private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:");
  private static final Pattern LINE_ANCHOR = Pattern.compile("L(\\d+)(?:-L(\\d+))?");
  private static final Pattern HTML_ID =
      Pattern.compile("<[a-zA-Z][^>]*?\\s(?:id|name)\\s*=\\s*[\"']([^\"']+)[\"']");
  // What GitHub drops from a heading's text to make its anchor: all but letters, marks, digits,
  // connector punctuation (the underscore), hyphens and spaces.
  private static final Pattern NOT_IN_SLUG =
      Pattern.compile("[^\\p{L}\\p{M}\\p{Nd}\\p{Nl}\\p{No}\\p{Pc}\\- ]");

  private final Map<Path, Set<String>> anchors = new HashMap<>();

  @Test
  void everyRelativeLinkAndAnchorResolves() throws IOException {
    List<String> broken = new ArrayList<>();
    int checked = 0;
    for (Path page : pages()) {
      for (PageLink link : links(page)) {
        checked++;
        String problem = problem(page, link.destination());
        if (problem != null) {
          broken.add(
              ROOT.relativize(page)
                  + ":"
                  + link.line()
                  + " ("
                  + link.destination()
                  + "): "
                  + problem);
        }
      }
    }
    assertThat(checked).as("relative links checked").isGreaterThan(100);
    assertThat(broken).as("broken links").isEmpty();
  }

  @Test
  void anchorsAreNamedAsGitHubNamesThem() {
    assertThat(
            anchorsOf(
                """
                # Getting started
                ## How it works
                ## `admin` and the CLI: what's new?
                ## Fail modes (open, closed)
                ## How it works
                ## Ünïcode — and_under_scores
                """))
        .containsExactlyInAnyOrder(
            "getting-started",
            "how-it-works",
            "admin-and-the-cli-whats-new",
            "fail-modes-open-closed",
            "how-it-works-1",
            "ünïcode--and_under_scores");
  }

  @Test
  void aBrokenLinkIsFound() {
    Path readme = ROOT.resolve("README.md");
    assertThat(problem(readme, "docs/no-such-page.md")).contains("no such file");
    assertThat(problem(readme, "docs/README.md#no-such-heading")).contains("no heading");
    assertThat(problem(readme, "#no-such-heading")).contains("no heading");
    assertThat(problem(readme, "pom.xml#L99999")).contains("has only");
    assertThat(problem(readme, "pom.xml#L1")).isNull();
    assertThat(problem(readme, "docs/README.md")).isNull();
  }

  /** What is wrong with {@code destination} as a link of {@code page}, or null if it resolves. */
  private String problem(Path page, String destination) {
    int hash = destination.indexOf('#');
    String path = hash < 0 ? destination : destination.substring(0, hash);
    String fragment = hash < 0 ? null : destination.substring(hash + 1);
    Path target;
    if (path.isEmpty()) {
      target = page;
    } else {
      String decoded = URLDecoder.decode(path.replace("+", "%2B"), StandardCharsets.UTF_8);
      target =
          (decoded.startsWith("/")
                  ? ROOT.resolve(decoded.substring(1))
                  : page.resolveSibling(decoded))
              .normalize();
    }
    if (!target.startsWith(ROOT)) {
      return "leads out of the repository";
    }
    if (!Files.exists(target)) {
      return "no such file " + ROOT.relativize(target);
    }
    if (fragment == null || fragment.isEmpty()) {
      return null;
    }
    if (Files.isDirectory(target)) {
      return "an anchor on a directory";
    }
    try {
      if (target.getFileName().toString().endsWith(".md")) {
        String anchor = URLDecoder.decode(fragment.replace("+", "%2B"), StandardCharsets.UTF_8);
        return anchorsOf(target).contains(anchor.toLowerCase(Locale.ROOT))
            ? null
            : "no heading of " + ROOT.relativize(target) + " has the anchor #" + anchor;
      }
      Matcher line = LINE_ANCHOR.matcher(fragment);
      if (!line.matches()) {
        return "#" + fragment + " is neither a heading nor a line of " + ROOT.relativize(target);
      }
      long lines;
      try (Stream<String> all = Files.lines(target, StandardCharsets.UTF_8)) {
        lines = all.count();
      }
      long last = Long.parseLong(line.group(line.group(2) == null ? 1 : 2));
      return last <= lines ? null : ROOT.relativize(target) + " has only " + lines + " lines";
    } catch (IOException e) {
      return "unreadable: " + e.getMessage();
    }
  }

  private Set<String> anchorsOf(Path page) throws IOException {
    Set<String> known = anchors.get(page);
    if (known == null) {
      known = anchorsOf(Files.readString(page, StandardCharsets.UTF_8));
      anchors.put(page, known);
    }
    return known;
  }

  /**
   * The anchors GitHub gives a page: each heading's text lower-cased, stripped of punctuation, its
   * spaces made hyphens, a repeat suffixed {@code -1}, {@code -2}, …; and every HTML {@code id} or
   * {@code name}.
   */
  private static Set<String> anchorsOf(String markdown) {
    Set<String> found = new HashSet<>();
    Map<String, Integer> repeats = new HashMap<>();
    PARSER
        .parse(markdown)
        .accept(
            new AbstractVisitor() {
              @Override
              public void visit(Heading heading) {
                String slug =
                    NOT_IN_SLUG
                        .matcher(text(heading).toLowerCase(Locale.ROOT))
                        .replaceAll("")
                        .replace(' ', '-');
                int seen = repeats.merge(slug, 1, Integer::sum) - 1;
                found.add(seen == 0 ? slug : slug + "-" + seen);
              }

              @Override
              public void visit(HtmlBlock html) {
                HTML_ID.matcher(html.getLiteral()).results().forEach(m -> found.add(m.group(1)));
              }

              @Override
              public void visit(HtmlInline html) {
                HTML_ID.matcher(html.getLiteral()).results().forEach(m -> found.add(m.group(1)));
              }
            });
    return found;
  }

  /** A heading's text as GitHub renders it: text and code spans, no markup. */
  private static String text(Node node) {
    StringBuilder out = new StringBuilder();
    for (Node child = node.getFirstChild(); child != null; child = child.getNext()) {
      if (child instanceof Text text) {
        out.append(text.getLiteral());
      } else if (child instanceof Code code) {
        out.append(code.getLiteral());
      } else if (child instanceof SoftLineBreak) {
        out.append(' ');
      } else {
        out.append(text(child));
      }
    }
    return out.toString();
  }

  /** A link's destination and the line it starts on (1-based). */
  private record PageLink(String destination, int line) {}

  /** The relative links and images of {@code page}: those without a scheme. */
  private static List<PageLink> links(Path page) throws IOException {
    List<PageLink> found = new ArrayList<>();
    PARSER
        .parse(Files.readString(page, StandardCharsets.UTF_8))
        .accept(
            new AbstractVisitor() {
              @Override
              public void visit(Link link) {
                add(link, link.getDestination());
                visitChildren(link);
              }

              @Override
              public void visit(Image image) {
                add(image, image.getDestination());
              }

              private void add(Node node, String destination) {
                if (!SCHEME.matcher(destination).find() && !destination.startsWith("//")) {
                  found.add(new PageLink(destination, line(node)));
                }
              }
            });
    return found;
  }

  /** The line {@code node} starts on, 1-based (0 when the parser gave none). */
  private static int line(Node node) {
    for (Node n = node; n != null; n = n.getParent()) {
      if (!n.getSourceSpans().isEmpty()) {
        return n.getSourceSpans().get(0).getLineIndex() + 1;
      }
    }
    return 0;
  }

  /** The README, the changelog, the guide's pages and every module's README. */
  private static List<Path> pages() throws IOException {
    List<Path> pages = new ArrayList<>();
    pages.add(ROOT.resolve("README.md"));
    pages.add(ROOT.resolve("CHANGELOG.md"));
    try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
      docs.filter(f -> f.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    try (Stream<Path> modules = Files.list(ROOT)) {
      modules
          .map(m -> m.resolve("README.md"))
          .filter(Files::isRegularFile)
          .filter(r -> !r.getParent().equals(ROOT.resolve("docs")))
          .sorted()
          .forEach(pages::add);
    }
    return pages;
  }
}
