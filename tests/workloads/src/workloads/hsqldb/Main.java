package workloads.hsqldb;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Properties;
import workloads.SqlWorkload;

/**
 * Runs the shared SQL workload ({@link SqlWorkload}) on an HSQLDB file
 * database under {@code db/} of the work directory (cached tables), through
 * HSQLDB's JDBC driver.
 */
public final class Main {
    private Main() {}

    /** {@code Main INPUT_DIR}. */
    public static void main(String[] args) throws Exception {
        Path in = Path.of(args[0]);
        Properties p = new Properties();
        p.setProperty("user", "SA");
        p.setProperty("password", "");
        p.setProperty("hsqldb.default_table_type", "cached");
        try (Connection db = new org.hsqldb.jdbc.JDBCDriver().connect("jdbc:hsqldb:file:db/workload", p)) {
            SqlWorkload.run(db, in, "hsqldb");
            db.setAutoCommit(true);
            try (Statement s = db.createStatement()) {
                s.execute("SHUTDOWN");
            }
        }
    }
}
