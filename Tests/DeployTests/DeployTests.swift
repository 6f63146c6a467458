import Foundation
import TestSupport
import Testing

/// Deploy/: each artefact checked by the tool that can check it here.
/// (The Dockerfiles need a Docker engine, which this machine does not have.)
@Suite struct DeployTests {
    static let root = CommandRunner.repositoryRoot(from: #filePath)

    func shell(_ command: String, environment: [String: String] = [:]) throws -> CommandRunner.Result {
        try CommandRunner.execute("/bin/bash", ["-c", command], environment: environment, directory: Self.root)
    }

    static func temporaryDirectory() -> String {
        let path = NSTemporaryDirectory() + "printbridge-deploy-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func theSystemdUnitVerifiesWithoutAWarning() throws {
        let binary = try #require(CommandRunner.binary(repositoryRoot: Self.root))
        let directory = Self.temporaryDirectory()
        // The unit as installed, with its paths pointing into a scratch directory.
        let unit = try String(contentsOfFile: Self.root + "/Deploy/systemd/printbridge.service", encoding: .utf8)
            .replacingOccurrences(of: "/usr/local/bin/printbridge", with: binary)
            .replacingOccurrences(of: "/etc/printbridge/", with: directory + "/")
        try unit.write(toFile: directory + "/printbridge.service", atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(
            atPath: Self.root + "/Deploy/systemd/printbridge.env.example", toPath: directory + "/printbridge.env")
        let result = try shell("systemd-analyze verify '\(directory)/printbridge.service'")
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty && result.stderr.isEmpty, "systemd-analyze: \(result.stdout)\(result.stderr)")
        for setting in ["DynamicUser=yes", "StateDirectory=printbridge", "NoNewPrivileges=yes", "ProtectSystem=strict",
                        "Restart=on-failure", "RestartPreventExitStatus=78", "LoadCredential=ha-token:", "LoadCredential=apns-key.p8:", "LoadCredential=api-token:",
                        "SetCredential=ha-token:\\n", "SetCredential=apns-key.p8:\\n", "SetCredential=api-token:\\n"] {
            #expect(unit.contains(setting), "\(setting)")
        }
        // The agent finds the credentials itself; a path pointing at a missing one would defeat the default.
        #expect(!unit.contains("Environment=HA_TOKEN_FILE") && !unit.contains("Environment=APNS_KEY_PATH"))
    }

    /// The test tools' virtual environment (scripts/install-test-deps.sh).
    static let venv = root + "/.build/test-venv/bin"

    @Test func theAddOnConfigurationHasASchemaForEveryOptionAndAnImage() throws {
        let check = try shell("""
            '\(Self.venv)/python3' -c '
            import re, yaml
            c = yaml.safe_load(open("Deploy/homeassistant-addon/printbridge/config.yaml"))
            assert c["homeassistant_api"] is True, "needs homeassistant_api"
            assert c["hassio_api"] is True and "hassio_role" not in c, "needs hassio_api, default role (GET /network/info)"
            assert c["schema"]["home_url"] == "url?" and c["schema"]["outside_url"] == "url?"
            assert set(c["options"]) <= set(c["schema"]), "an option without a schema"
            assert all(k.endswith("?") or k in c["options"] or str(v).endswith("?") for k, v in c["schema"].items()), "a required option without a default"
            assert c["schema"]["api_token"] == "password"
            assert "3000/tcp" in c["ports"] and c["ingress"] is True and c["ingress_port"] == 3000
            assert re.fullmatch(r"ghcr\\.io/[a-z0-9-]+/\\{arch\\}-printbridge", c["image"]), c["image"]
            assert c["url"].startswith("https://github.com/") and c["url"].count("/") > 4, c["url"]
            assert c["init"] is False, "s6-overlay is the init"
            r = yaml.safe_load(open("repository.yaml"))
            assert r["name"] and c["url"].startswith(r["url"] + "/"), "repository.yaml names this repository"
            print("ok")
            '
            """)
        #expect(check.status == 0 && check.stdout == "ok\n", "\(check.stderr)")
    }

    /// The official add-on linter's checks: its JSON schema (with options at
    /// their default value refused) and its rules, over config.yaml, and the
    /// files the add-on store shows.
    @Test func theAddOnPassesTheAddOnLinter() throws {
        let lint = "'\(Self.venv)/python3' Tests/DeployTests/addon_lint.py"
        let schema = "Tests/DeployTests/Fixtures/addon-linter/config.schema.json"
        let result = try shell("\(lint) Deploy/homeassistant-addon/printbridge \(schema)")
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        // The linter refuses what the old configuration had: boot and startup at their defaults.
        let old = Self.temporaryDirectory()
        _ = try shell("cp -r Deploy/homeassistant-addon/printbridge/. '\(old)/' && printf 'startup: application\\nboot: auto\\n' >> '\(old)/config.yaml'")
        let refused = try shell("\(lint) '\(old)' \(schema)")
        #expect(refused.status == 1 && refused.stdout.contains("'boot' should be removed, it uses a default value"))
        #expect(refused.stdout.contains("'startup' should be removed"))
    }

    /// The workflow that builds and publishes the add-on's images cannot run
    /// here; GitHub's workflow schema (check-jsonschema's vendored copy) checks it.
    @Test func theAddOnBuilderWorkflowIsAValidWorkflow() throws {
        let result = try shell(
            "'\(Self.venv)/check-jsonschema' --builtin-schema vendor.github-workflows .github/workflows/addon-builder.yaml")
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let workflow = try String(contentsOfFile: Self.root + "/.github/workflows/addon-builder.yaml", encoding: .utf8)
        for action in ["home-assistant/builder/actions/prepare-multi-arch-matrix@", "home-assistant/builder/actions/build-image@",
                       "home-assistant/builder/actions/publish-multi-arch-manifest@", "frenck/action-addon-linter@"] {
            #expect(workflow.contains(action), "\(action)")
        }
        #expect(workflow.contains("file: ${{ env.ADDON }}/Dockerfile") && workflow.contains("context: ."))
    }

    @Test(arguments: ["Deploy/docker/Dockerfile", "Deploy/homeassistant-addon/printbridge/Dockerfile"])
    func theDockerfilesAreHadolintClean(path: String) throws {
        let result = try shell("'\(Self.venv)/hadolint' --no-color '\(path)'")
        #expect(result.status == 0 && result.stdout.isEmpty, "\(result.stdout)\(result.stderr)")
        let text = try String(contentsOfFile: Self.root + "/" + path, encoding: .utf8)
        #expect(text.contains(#"HEALTHCHECK"#) && text.contains(#"CMD ["/usr/local/bin/printbridge", "health"]"#))
    }

    /// A code fence left open swallows the prose after it (it once hid the
    /// whole "Health and metrics" section).
    @Test(arguments: ["README.md", "Deploy/README.md", "docs/BEHAVIOUR.md", "Deploy/homeassistant-addon/printbridge/DOCS.md"])
    func everyCodeFenceCloses(path: String) throws {
        let text = try String(contentsOfFile: Self.root + "/" + path, encoding: .utf8)
        var open: Int?
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("```") {
                if open == nil { open = number + 1 } else {
                    #expect(line == "```", "\(path):\(number + 1): a closing fence with text after it")
                    open = nil
                }
            } else if open == nil {
                #expect(!line.contains("```"), "\(path):\(number + 1): a fence inside a line")
            }
        }
        #expect(open == nil, "\(path): the fence opened at line \(open ?? 0) never closes")
    }

    /// The agent loads the libraries its runtime packages name and no more:
    /// no libcurl (with its LDAP, Kerberos, SSH, RTMP and GnuTLS), which the
    /// APNs client left for nghttp2.
    @Test func theBinaryLoadsOnlyItsOwnLibraries() throws {
        let binary = try #require(CommandRunner.binary(repositoryRoot: Self.root))
        let loaded = try shell("ldd '\(binary)'")
        #expect(loaded.status == 0, "\(loaded.stderr)")
        for library in ["libwebsockets.so", "libnghttp2.so", "libssl.so", "libsqlite3.so", "libqrencode.so", "libz.so", "libyaml-0.so"] {
            #expect(loaded.stdout.contains(library), "\(library) in \(loaded.stdout)")
        }
        for library in ["libcurl", "libgnutls", "libldap", "libkrb5", "libssh2", "librtmp"] {
            #expect(!loaded.stdout.contains(library), "\(library) in \(loaded.stdout)")
        }
    }

    @Test func theInstallScriptInstallsIntoARoot() throws {
        let binary = try #require(CommandRunner.binary(repositoryRoot: Self.root))
        let root = Self.temporaryDirectory()
        let first = try shell("Deploy/install.sh --root '\(root)' --binary '\(binary)'")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("systemctl enable --now printbridge"))
        for file in ["/usr/local/bin/printbridge", "/etc/systemd/system/printbridge.service", "/etc/printbridge/printbridge.env"] {
            #expect(FileManager.default.fileExists(atPath: root + file), "\(file)")
        }
        let mode = try FileManager.default.attributesOfItem(atPath: root + "/etc/printbridge/printbridge.env")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // A second run keeps the user's edited settings.
        try "HA_URL=http://edited:8123\n".write(toFile: root + "/etc/printbridge/printbridge.env", atomically: true, encoding: .utf8)
        #expect(try shell("Deploy/install.sh --root '\(root)' --binary '\(binary)'").status == 0)
        #expect(try String(contentsOfFile: root + "/etc/printbridge/printbridge.env", encoding: .utf8) == "HA_URL=http://edited:8123\n")
        #expect(try shell("Deploy/install.sh --bogus").status == 64)
    }
}

/// What a user types first: `--help` for every command, `--version`, and the
/// exit codes, documented in the top-level help.
@Suite struct CommandHelpTests {
    static let commands = [
        ["run"], ["replay"], ["record"], ["send-test"], ["check-config"],
        ["devices"], ["devices", "list"], ["devices", "add"], ["devices", "remove"], ["devices", "prefs"], ["history"], ["notifications"], ["health"],
        ["certificate"], ["certificate", "show"], ["certificate", "rotate"],
    ]

    /// Every command names itself: without `commandName` ArgumentParser
    /// derives the name from `String(describing: Self.self)` each time a
    /// command line is parsed, which reflects the type (Mirror, the runtime's
    /// demangler, Unicode case tables): 3.4 M instructions of `run`'s
    /// start-up for two unnamed subcommands, and their code left mapped.
    @Test func everyCommandConfigurationNamesItsCommand() throws {
        let directory = DeployTests.root + "/Sources/printbridge"
        var configurations = 0
        for file in try FileManager.default.contentsOfDirectory(atPath: directory) where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
            for piece in text.components(separatedBy: "CommandConfiguration(").dropFirst() {
                configurations += 1
                #expect(piece.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("commandName:"),
                        "\(file): a CommandConfiguration without commandName")
            }
        }
        #expect(configurations >= 19)
    }

    @Test(arguments: commands)
    func everyCommandHasHelp(command: [String]) throws {
        let result = try CommandRunner.run(command + ["--help"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("USAGE: printbridge \(command.joined(separator: " "))"))
        #expect(result.stdout.contains("-h, --help"))
    }

    @Test func versionAndExitCodes() throws {
        let version = try CommandRunner.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("printbridge 0."))
        #expect(version.stdout.contains("libwebsockets") && version.stdout.contains("nghttp2"))
        let help = try CommandRunner.run(["--help"])
        for code in ["0 ok", "64 usage error", "66 ", "69 ", "71 ", "73 ", "78 configuration error"] {
            #expect(help.stdout.contains(code), "exit code \(code) is documented")
        }
        for command in Self.commands where command.count == 1 {
            #expect(help.stdout.contains("  \(command[0]) "), "\(command[0]) is listed")
        }
        #expect(try CommandRunner.run(["run", "--no-such-flag"]).status == 64)
    }
}

/// The images' runtime stage installs the runtime package of every -dev
/// package the build stage compiles against (checked with dpkg, which knows
/// what each -dev package depends on).
@Suite struct DockerfileTests {
    static func packages(after marker: String, in text: String) -> [String] {
        guard let range = text.range(of: marker) else { return [] }
        var words: [String] = []
        for line in text[range.upperBound...].split(separator: "\n") {
            words += line.split(separator: " ").map(String.init).filter { $0 != "\\" && !$0.hasPrefix("&&") }
            if !line.hasSuffix("\\") { break }
        }
        return words.filter { !$0.hasPrefix("-") && $0 != "&&" }
    }

    @Test(arguments: ["Deploy/docker/Dockerfile", "Deploy/homeassistant-addon/printbridge/Dockerfile"])
    func runtimeStageHasTheLibrariesTheBuildLinks(path: String) throws {
        let text = try String(contentsOfFile: DeployTests.root + "/" + path, encoding: .utf8)
        let stages = text.components(separatedBy: "\nFROM ")
        #expect(stages.count == 3, "a build stage and a runtime stage")
        let build = Self.packages(after: "apt-get install -y --no-install-recommends", in: stages[1])
        let runtime = Set(Self.packages(after: "apt-get install -y --no-install-recommends", in: stages[2]))
        let developmentPackages = build.filter { $0.hasSuffix("-dev") }
        #expect(developmentPackages.count == 7)
        for package in developmentPackages {
            let depends = try CommandRunner.execute(
                "/usr/bin/dpkg-query", ["-W", "-f=${Depends}", package], directory: DeployTests.root)
            #expect(depends.status == 0, "\(package) is installed here (scripts/install-deps.sh)")
            let libraries = depends.stdout.split(separator: ",").map {
                String($0.trimmingCharacters(in: .whitespaces).prefix { $0 != " " && $0 != ":" })
            }
            #expect(libraries.contains { runtime.contains($0) }, "\(package) needs one of \(libraries); runtime has \(runtime)")
        }
        #expect(runtime.contains("ca-certificates"), "HA over https and APNs need the CA store")
    }

    /// The image builds with the Swift everything here is tested on.
    @Test(arguments: ["Deploy/docker/Dockerfile", "Deploy/homeassistant-addon/printbridge/Dockerfile"])
    func buildsWithTheTestedSwift(path: String) throws {
        let text = try String(contentsOfFile: DeployTests.root + "/" + path, encoding: .utf8)
        let version = try CommandRunner.execute("/usr/bin/env", ["swift", "--version"], directory: DeployTests.root)
        let tested = try #require(version.stdout.split(separator: " ").drop { $0 != "version" }.dropFirst().first)
        #expect(text.contains("FROM swift:\(tested)-bookworm AS build"), "\(path) builds with another Swift than \(tested)")
    }

    /// The image's binary is built as the benchmarks measure it (scripts/build-release.sh),
    /// from files the build stage copies in.
    @Test(arguments: ["Deploy/docker/Dockerfile", "Deploy/homeassistant-addon/printbridge/Dockerfile"])
    func buildStageBuildsAsDeployed(path: String) throws {
        let text = try String(contentsOfFile: DeployTests.root + "/" + path, encoding: .utf8)
        let build = text.components(separatedBy: "\nFROM ")[1]
        #expect(build.contains("RUN scripts/build-release.sh printbridge"))
        #expect(build.contains(".build/deploy/release/printbridge /out/printbridge"))
        // Every source of each COPY (all but its last word, the destination).
        let copied = build.split(separator: "\n").filter { $0.hasPrefix("COPY ") }
            .flatMap { $0.split(separator: " ").dropFirst().dropLast() }
        #expect(copied.contains("scripts/build-release.sh"), "\(path) copies scripts/build-release.sh")
        for source in copied {
            #expect(FileManager.default.fileExists(atPath: DeployTests.root + "/" + source), "\(source) is in the repository")
        }
    }

    /// GnuTLS must not initialise itself should a library load it again (none
    /// does since libcurl left), and reads GNUTLS_NO_IMPLICIT_INIT only as it
    /// is loaded: every way of deploying sets it in the runtime environment.
    @Test func everyDeploymentKeepsGnuTLSFromInitialisingItself() throws {
        func text(_ path: String) throws -> String {
            try String(contentsOfFile: DeployTests.root + "/" + path, encoding: .utf8)
        }
        let unit = try text("Deploy/systemd/printbridge.service")
        #expect(unit.split(separator: "\n").contains("Environment=GNUTLS_NO_IMPLICIT_INIT=1"))
        for path in ["Deploy/docker/Dockerfile", "Deploy/homeassistant-addon/printbridge/Dockerfile"] {
            let runtime = try text(path).components(separatedBy: "\nFROM ").last ?? ""
            let environment = runtime.split(separator: "\n").filter { $0.hasPrefix("ENV ") }
            #expect(environment.contains { $0.split(separator: " ").contains("GNUTLS_NO_IMPLICIT_INIT=1") }, "\(path)")
        }
        let service = try text("Deploy/homeassistant-addon/printbridge/rootfs/etc/services.d/printbridge/run")
        #expect(service.contains("export GNUTLS_NO_IMPLICIT_INIT=1"))
    }
}
