package workloads.xalan;

import java.io.IOException;
import java.nio.file.Path;
import workloads.Results;
import workloads.Rng;

/**
 * The xalan workload's input: {@code catalog.xml}, a generated catalogue of
 * books, and {@code report.xsl}, a stylesheet with keys (Muenchian grouping),
 * sorting, {@code xsl:number}, named recursive templates and string functions.
 */
public final class Input {
    private Input() {}

    /** Number of books in the catalogue. */
    static final int BOOKS = 1200;

    /** Writes {@code catalog.xml} and {@code report.xsl} under {@code dir}. */
    public static void generate(Path dir) throws IOException {
        Rng rng = new Rng(42);
        String[] genres = {"poetry", "history", "science", "travel", "fiction", "cooking", "music", "law"};
        String[] authors = new String[60];
        for (int i = 0; i < authors.length; i++) {
            authors[i] = rng.name() + " " + rng.name() + (i % 7 == 0 ? "-" + rng.name() : "");
        }
        StringBuilder x = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<catalog>\n");
        for (int i = 0; i < BOOKS; i++) {
            x.append("  <book id=\"b").append(i).append("\" genre=\"").append(rng.pick(genres))
                    .append("\" year=\"").append(rng.between(1800, 2020)).append("\">\n");
            x.append("    <title>  ").append(rng.words(rng.between(1, 5))).append("  </title>\n");
            int na = rng.between(1, 3);
            for (int a = 0; a < na; a++) {
                x.append("    <author>").append(rng.pick(authors)).append("</author>\n");
            }
            x.append("    <price currency=\"EUR\">").append(rng.between(1, 200)).append('.')
                    .append(rng.between(10, 99)).append("</price>\n");
            x.append("    <tags>");
            int nt = rng.between(0, 4);
            for (int t = 0; t < nt; t++) {
                x.append("<tag>").append(rng.word()).append("</tag>");
            }
            x.append("</tags>\n");
            x.append("    <summary>").append(rng.words(rng.between(5, 25))).append("</summary>\n");
            x.append("  </book>\n");
        }
        x.append("</catalog>\n");
        Results.writeInput(dir, "catalog.xml", x);
        Results.writeInput(dir, "report.xsl", STYLESHEET);
    }

    static final String STYLESHEET = String.join("\n",
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            "<xsl:stylesheet version=\"1.0\" xmlns:xsl=\"http://www.w3.org/1999/XSL/Transform\">",
            "  <xsl:output method=\"xml\" indent=\"yes\" encoding=\"UTF-8\"/>",
            "  <xsl:key name=\"by-genre\" match=\"book\" use=\"@genre\"/>",
            "  <xsl:key name=\"by-author\" match=\"book\" use=\"author\"/>",
            "  <xsl:param name=\"cheap\" select=\"20\"/>",
            "",
            "  <xsl:template match=\"/catalog\">",
            "    <report books=\"{count(book)}\" total=\"{format-number(sum(book/price), '#,##0.00')}\">",
            "      <xsl:for-each select=\"book[generate-id() = generate-id(key('by-genre', @genre)[1])]\">",
            "        <xsl:sort select=\"@genre\"/>",
            "        <xsl:variable name=\"g\" select=\"key('by-genre', @genre)\"/>",
            "        <genre name=\"{translate(@genre, 'abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ')}\"",
            "               count=\"{count($g)}\"",
            "               average=\"{format-number(sum($g/price) div count($g), '0.000')}\"",
            "               oldest=\"{$g[not($g/@year &lt; @year)][1]/@year}\">",
            "          <xsl:apply-templates select=\"$g\">",
            "            <xsl:sort select=\"number(price)\" data-type=\"number\" order=\"descending\"/>",
            "            <xsl:sort select=\"@id\"/>",
            "          </xsl:apply-templates>",
            "        </genre>",
            "      </xsl:for-each>",
            "      <authors>",
            "        <xsl:for-each select=\"book/author[generate-id(..) = generate-id(key('by-author', .)[1])]\">",
            "          <xsl:sort select=\"substring-after(., ' ')\"/>",
            "          <xsl:sort select=\".\"/>",
            "          <author initials=\"{concat(substring(., 1, 1), '.', substring(substring-after(., ' '), 1, 1), '.')}\"",
            "                  books=\"{count(key('by-author', .))}\">",
            "            <xsl:number value=\"position()\" format=\"i\"/>",
            "            <xsl:text> </xsl:text>",
            "            <xsl:value-of select=\"normalize-space(.)\"/>",
            "          </author>",
            "        </xsl:for-each>",
            "      </authors>",
            "    </report>",
            "  </xsl:template>",
            "",
            "  <xsl:template match=\"book\">",
            "    <book>",
            "      <xsl:attribute name=\"n\"><xsl:number count=\"book\" format=\"001\"/></xsl:attribute>",
            "      <xsl:attribute name=\"rank\"><xsl:value-of select=\"position()\"/></xsl:attribute>",
            "      <xsl:if test=\"price &lt; $cheap\"><xsl:attribute name=\"cheap\">yes</xsl:attribute></xsl:if>",
            "      <title><xsl:value-of select=\"normalize-space(title)\"/></title>",
            "      <by><xsl:for-each select=\"author\"><xsl:sort select=\".\"/>"
                    + "<xsl:if test=\"position() &gt; 1\">; </xsl:if><xsl:value-of select=\".\"/></xsl:for-each></by>",
            "      <xsl:choose>",
            "        <xsl:when test=\"@year &lt; 1900\"><era>old</era></xsl:when>",
            "        <xsl:when test=\"@year &lt; 1970\"><era>middle</era></xsl:when>",
            "        <xsl:otherwise><era>recent</era></xsl:otherwise>",
            "      </xsl:choose>",
            "      <xsl:if test=\"tags/tag\">",
            "        <tags><xsl:for-each select=\"tags/tag\"><xsl:sort select=\".\"/>"
                    + "<xsl:value-of select=\".\"/><xsl:if test=\"position() != last()\">,</xsl:if></xsl:for-each></tags>",
            "      </xsl:if>",
            "      <words><xsl:call-template name=\"count-words\"><xsl:with-param name=\"s\" select=\"normalize-space(summary)\"/></xsl:call-template></words>",
            "      <short><xsl:value-of select=\"substring(summary, 1, 24)\"/></short>",
            "      <has-the><xsl:value-of select=\"contains(summary, 'the ')\"/></has-the>",
            "    </book>",
            "  </xsl:template>",
            "",
            "  <xsl:template name=\"count-words\">",
            "    <xsl:param name=\"s\"/>",
            "    <xsl:param name=\"n\" select=\"0\"/>",
            "    <xsl:choose>",
            "      <xsl:when test=\"contains($s, ' ')\">",
            "        <xsl:call-template name=\"count-words\">",
            "          <xsl:with-param name=\"s\" select=\"substring-after($s, ' ')\"/>",
            "          <xsl:with-param name=\"n\" select=\"$n + 1\"/>",
            "        </xsl:call-template>",
            "      </xsl:when>",
            "      <xsl:when test=\"string-length($s) &gt; 0\"><xsl:value-of select=\"$n + 1\"/></xsl:when>",
            "      <xsl:otherwise><xsl:value-of select=\"$n\"/></xsl:otherwise>",
            "    </xsl:choose>",
            "  </xsl:template>",
            "</xsl:stylesheet>",
            "");
}
