// Reads patterns (one per line, hex-encoded UTF-8) on stdin and prints, for each, "OK" when
// com.google.re2j.Pattern.compile accepts it, else "ERR " and RE2J's description: the verdict
// the broker gives a KIP-848 subscription regex. Run with the broker's jars on the class path.
import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

public class Re2jVerdicts {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        StringBuilder out = new StringBuilder();
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            String pattern = new String(HexFormat.of().parseHex(line), StandardCharsets.UTF_8);
            try {
                Pattern.compile(pattern);
                out.append("OK\n");
            } catch (PatternSyntaxException e) {
                out.append("ERR ").append(e.getDescription()).append('\n');
            }
        }
        System.out.print(out);
    }
}
