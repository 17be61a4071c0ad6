/* cli_specs.c - every command's option table: what `tabletrack help CMD`,
 * `CMD --help`, the man page and the bash completion show, and what
 * cli_args_next accepts.  One place, so they never disagree. */
#include "cli.h"
#include "rules.h"

#define DETECTOR_OPTS                                                                                              \
    {"--decimate", "D", CLI_VALUE, "search on an image D times smaller first (1-8); default: half size, and full " \
                                   "resolution where the tags are too small for it; D forces one scale"},      \
        {"--refine-edges", "0|1", CLI_VALUE, "refine tag edges on the full image (default 1)"},                     \
        {"--threads", "N", CLI_VALUE, "detector threads (default 1)"}

/* The broker of a convention hall (hall/): track, replay and hall. */
#define MQTT_OPTS                                                                                                  \
    {"--mqtt", "HOST[:PORT]", CLI_VALUE, "the hall's MQTT broker (mosquitto; port default 1883)"},                  \
        {"--mqtt-user", "USER", CLI_VALUE,                                                                         \
         "log in to the broker as USER; the password comes from --mqtt-password-file or $TABLETRACK_MQTT_PASSWORD"}, \
        {"--mqtt-password-file", "FILE", CLI_VALUE | CLI_FILE, "the broker password, on the file's first line"},   \
        {"--mqtt-cafile", "FILE", CLI_VALUE | CLI_FILE,                                                            \
         "TLS: the CA certificate (PEM) that signed the broker's certificate (a TLS broker listens on port 8883 "  \
         "as a rule)"}

const cli_spec cli_spec_detect = {
    "detect",
    "detect AprilTags in an image, print JSON (pixels)",
    "[--family NAME]... [--decimate D] [--refine-edges 0|1] [--threads N] IMAGE",
    "Prints {\"image\":[W,H],\"detections\":[{\"family\",\"id\",\"center\",\"corners\",\"hamming\",\"margin\"}]} "
    "for every tag seen in IMAGE, in OpenCV's pixel convention (the centre of the first pixel is (0,0)); corners "
    "in libapriltag's order: bottom-left, bottom-right, top-right, top-left of the printed tag.",
    (const cli_opt[]){
        {"--family", "NAME", CLI_VALUE | CLI_REPEAT, "tag family to look for (default tag36h11)"},
        DETECTOR_OPTS,
        {NULL, NULL, 0, NULL}},
    NULL,
    "tabletrack detect samples/table/frame.png",
};

const cli_spec cli_spec_locate = {
    "locate",
    "locate figures on the table in inches from one camera image",
    "--rig RIG [--scenario S] [--json] [--decimate D] [--refine-edges 0|1] [--threads N] IMAGE...",
    "To a terminal, prints a table of the figures; piped, or with --json, prints "
    "{\"figures\":[{\"family\", \"id\", \"x\", \"y\", \"z_in\", \"facing_deg\", \"err95_in\", \"z_err95_in\", "
    "\"facing_err95_deg\"}], \"anchors_used\":N, \"reprojection_rms_px\":R}: each figure's base centre in table "
    "inches, the height it stands at above the felt and its facing in degrees, each with its 95% error. The rig file "
    "names the table, the anchors, camera.yaml and the tag families. With --scenario, each tag is mapped at the "
    "height of the raised terrain (hills, buildings, slopes) it stands on and gets its scenario figure's \"name\"; a "
    "figure whose tag measures off that height beyond both errors is placed at its measured height and named in a "
    "warning on stderr. A rig with several \"cameras\" takes one IMAGE per camera, in the rig's order: each camera "
    "is placed by the anchors it sees (four at least), a figure seen by two is reported once at the error-weighted "
    "mean of its sightings (with \"seen_by\", and \"cameras\" for each camera's pose), and sightings that disagree "
    "beyond their errors are named in a warning.",
    (const cli_opt[]){
        {"--rig", "RIG", CLI_VALUE | CLI_FILE, "the rig file (table size, anchors, camera.yaml, bases)"},
        {"--scenario", "S", CLI_VALUE | CLI_FILE, "the scenario: its raised terrain and the figures' names"},
        {"--json", NULL, 0, "print JSON even to a terminal (it is always printed to a pipe or a file)"},
        DETECTOR_OPTS,
        {NULL, NULL, 0, NULL}},
    NULL,
    "tabletrack locate --rig samples/table/rig.json samples/table/frame.png",
};

const cli_spec cli_spec_check = {
    "check",
    "hold the rig against a frame from the camera: can it read every tag on this table?",
    "--rig RIG [--json] IMAGE...",
    "Run it right after writing the rig file, on a frame from the camera as it will watch the game. Reports the "
    "anchors seen and the pose's error, how many pixels a cell of the rig's tags (size_in / 8) spans over the "
    "whole table and at the figure tags seen, and the smallest tag this camera reads everywhere; where a spot is "
    "below what the detector reads (1.8 px per cell), advice in words. With --json: {\"ok\", \"anchors_seen\", "
    "\"reprojection_rms_px\", \"min_px_per_cell\", \"min_at\", \"advice\", ...}. Exits 0 when every spot is "
    "readable, 1 when one is not (the report is printed in both cases). A rig with several \"cameras\" takes one "
    "IMAGE per camera, in the rig's order, and reports each camera (anchors seen, pose error, px per cell over its "
    "part), a coverage map, the width of each overlap and every gap no camera reads: {\"ok\", \"cameras\": [...], "
    "\"gaps\": [{\"x0\", \"y0\", \"x1\", \"y1\"}], \"overlaps\", \"coverage\", \"advice\"}; a gap fails.",
    (const cli_opt[]){
        {"--rig", "RIG", CLI_VALUE | CLI_FILE, "the rig file (table size, anchors, camera.yaml, bases)"},
        {"--json", NULL, 0, "print the report as one JSON object"},
        {NULL, NULL, 0, NULL}},
    NULL,
    "tabletrack check --rig samples/table/rig.json samples/table/frame.png",
};

const cli_spec cli_spec_calib_camera = {
    "calib camera",
    "camera intrinsics (camera.yaml) from photos of the printed board",
    "--board BOARD --out camera.yaml [--min-tags N] [--decimate D] IMAGE...",
    "Give 10-20 photos of the whole board from different angles (tilted 20-45 degrees in most), all at the "
    "resolution you will track at. Prints a line per photo, the RMS reprojection error and the intrinsics, and "
    "warns about photos it skipped.",
    (const cli_opt[]){
        {"--board", "BOARD", CLI_VALUE | CLI_FILE, "the board file (JSON, e.g. samples/board.json)"},
        {"--out", "camera.yaml", CLI_VALUE | CLI_OUT, "where to write the intrinsics (written atomically)"},
        {"--min-tags", "N", CLI_VALUE, "skip photos with fewer board tags than this (default 8, at least 4)"},
        {"--decimate", "D", CLI_VALUE, "detector decimation, 1-8 (default 2)"},
        {NULL, NULL, 0, NULL}},
    NULL,
    "tabletrack calib camera --board samples/board.json --out camera.yaml photos/*.jpg",
};

const cli_spec cli_spec_calib_projector = {
    "calib projector",
    "map projector pixels to table inches (projector.json)",
    "--rig RIG --width W --height H --patterns-out DIR\n"
    "--rig RIG --captures DIR --out projector.json [--scenario S] [--width W --height H] [--no-grid]\n"
    "--rig RIG --live --source SRC --window DISPLAY --width W --height H --out projector.json [--scenario S] "
    "[--settle-ms MS] [--keep-captures DIR] [--no-grid]",
    "Either write the patterns (--patterns-out), show each full screen and photograph it with the rig's camera, "
    "then solve from the photos (--captures); or let --live show and photograph them itself.",
    (const cli_opt[]){
        {"--rig", "RIG", CLI_VALUE | CLI_FILE, "the rig file (the camera that photographs the patterns)"},
        {"--width", "W", CLI_VALUE, "projector width in pixels"},
        {"--height", "H", CLI_VALUE, "projector height in pixels"},
        {"--patterns-out", "DIR", CLI_VALUE | CLI_OUT, "write the pattern images into this folder"},
        {"--captures", "DIR", CLI_VALUE | CLI_FILE, "the folder of photos, one per pattern, named like the patterns"},
        {"--out", "projector.json", CLI_VALUE | CLI_OUT, "where to write the projector map"},
        {"--no-grid", NULL, 0, "fit the homography only, without the correction grid"},
        {"--live", NULL, 0, "show the patterns in a window and photograph them with --source"},
        {"--source", "SRC", CLI_VALUE, "--live: the camera (/dev/videoN or usb:SERIAL)"},
        {"--window", "DISPLAY", CLI_VALUE, "--live: the X display of the projector (e.g. :0)"},
        {"--settle-ms", "MS", CLI_VALUE, "--live: wait this long after showing a pattern (0-10000, default 400)"},
        {"--keep-captures", "DIR", CLI_VALUE | CLI_OUT, "--live: also save the photos in this folder"},
        {"--scenario", "S", CLI_VALUE | CLI_FILE,
         "solve in 3D: the scenario's raised pieces (a box or hill of known height) must be lit in the photos"},
        {NULL, NULL, 0, NULL}},
    "--patterns-out --captures;--live --patterns-out;--live --captures",
    "tabletrack calib projector --rig rig.json --width 1920 --height 1080 --patterns-out patterns\n"
    "tabletrack calib projector --rig rig.json --captures photos --out projector.json\n"
    "tabletrack calib projector --rig rig.json --captures photos --scenario box.json --out projector.json",
};

const cli_spec cli_spec_print_board = {
    "print board",
    "print the calibration board at true scale",
    "--board BOARD [--paper a4|letter] --out board.pdf|.svg",
    "One page (landscape if that fits better) with a 1-inch check square: print at 100 % / \"Actual size\" and "
    "measure the square.",
    (const cli_opt[]){
        {"--board", "BOARD", CLI_VALUE | CLI_FILE, "the board file (JSON, e.g. samples/board.json)"},
        {"--paper", "a4|letter", CLI_VALUE, "paper size (default letter)"},
        {"--out", "FILE", CLI_VALUE | CLI_OUT, "the sheet to write: .pdf or .svg"},
        {NULL, NULL, 0, NULL}},
    NULL,
    "tabletrack print board --board samples/board.json --paper a4 --out board.pdf",
};

const cli_spec cli_spec_print_tags = {
    "print tags",
    "print true-scale tag sheets for figure bases and anchors",
    "[--family F] --ids A-B --size-in S [--base round:D | rect:WxD] [--per-page N] [--paper a4|letter] "
    "--out tags.pdf|.svg",
    "Tags drawn cell by cell, with the base's cut outline and the id beside each, over as many pages as needed "
    "(PDF). Every page has a 1-inch check square: print at 100 % / \"Actual size\" and measure it.",
    (const cli_opt[]){
        {"--family", "F", CLI_VALUE, "tag family (default tag36h11; see docs/setup.md, 'Which family for which base')"},
        {"--ids", "A-B", CLI_VALUE, "the ids to print, e.g. 0-99, or one id"},
        {"--size-in", "S", CLI_VALUE, "edge of the tag's detected square, inches (as size_in in the rig file)"},
        {"--base", "round:D|rect:WxD", CLI_VALUE,
         "cut outline of the figure base, inches or with mm (round:25mm, rect:20x40mm); the tag must fit it"},
        {"--per-page", "N", CLI_VALUE, "at most N tags a page, spread over it (anchors: 1 or 4)"},
        {"--paper", "a4|letter", CLI_VALUE, "paper size (default letter)"},
        {"--out", "FILE", CLI_VALUE | CLI_OUT, "the sheets to write: .pdf (any number of pages) or .svg (one page)"},
        {NULL, NULL, 0, NULL}},
    NULL,
    "tabletrack print tags --ids 4-99 --size-in 0.69 --base round:25mm --out tags.pdf\n"
    "tabletrack print tags --ids 0-3 --size-in 2 --per-page 4 --out anchors.pdf",
};

/* One line of `tabletrack help rules` a query kind (rules.h's list). */
#define CLI_RULES_KIND(KIND, name, help) "\n" #name ": " help

const cli_spec cli_spec_rules = {
    "rules",
    "answer rules queries (JSON Lines on stdin) for a scenario",
    "--scenario FILE < queries.jsonl\n--ruleset NAME --house",
    "Reads one JSON query per line on stdin and writes one JSON answer line per query, in order; a bad query gets "
    "{\"error\": \"...\"} and the stream goes on. The queries (\"q\"; docs/rules.md gives each one's fields and "
    "answer):" RULES_QUERY_KINDS(CLI_RULES_KIND) "\nEvery answer that comes from a rulebook says where, in "
    "\"rule\". With --house, lists the values of a ruleset that its rulebook does not settle (the house values), "
    "one per line. Rule-set profiles are found in $TABLETRACK_DATA, the source tree, then next to the executable.",
    (const cli_opt[]){
        {"--scenario", "FILE", CLI_VALUE | CLI_FILE, "the scenario (ruleset, table, terrain, figures, tags)"},
        {"--ruleset", "NAME", CLI_VALUE, "a ruleset (into-the-breach, thin-red-line, all-the-kings-men, fixed-bayonet) "
                                         "or a profile file, for --house"},
        {"--house", NULL, 0, "list the ruleset's house values (what its rulebook does not settle) and exit"},
        {NULL, NULL, 0, NULL}},
    "--scenario --ruleset;--scenario --house",
    "echo '{\"q\":\"los\",\"from\":\"m1\",\"to\":\"f3\"}' | tabletrack rules --scenario "
    "samples/scenarios/into-the-breach-farm.json\n"
    "tabletrack rules --ruleset thin-red-line --house",
};

const cli_spec cli_spec_overlay = {
    "overlay",
    "draw rules answers as a projector image",
    "--rig RIG --projector projector.json --scenario S --query Q [--query Q]... [--out overlay.png] "
    "[--window[=DISPLAY]] [--hold-ms MS] [--cite]\n"
    "--rig RIG --projector P1 --out P1.png --projector P2 --out P2.png [--projector P --out FILE.png]... "
    "--scenario S --query Q [--query Q]... [--cite]\n"
    "--rig RIG --scenario S --query Q [--query Q]... --on-camera IMAGE --out view.png",
    "Draws the answers to the queries (with the scenario's figures where they stand) through the projector map, "
    "into a PNG and/or a fullscreen window; or over a camera frame, to check the drawing against the table.\n"
    "Several projectors on one table: give --projector once per projector and --out once per projector, in the "
    "same order. Each draws what falls in its own picture; where pictures overlap each one's light ramps across "
    "the overlap (by the projector's gamma: projector.json's \"gamma\", else 2.2) so the sum is even.",
    (const cli_opt[]){
        {"--rig", "RIG", CLI_VALUE | CLI_FILE, "the rig file"},
        {"--projector", "projector.json", CLI_VALUE | CLI_FILE | CLI_REPEAT,
         "the projector map from 'calib projector' (once per projector)"},
        {"--scenario", "S", CLI_VALUE | CLI_FILE, "the scenario the queries are about"},
        {"--query", "Q", CLI_VALUE | CLI_REPEAT, "a rules query, JSON, e.g. '{\"q\":\"grape\",\"from\":\"gun1\"}'"},
        {"--out", "FILE.png", CLI_VALUE | CLI_OUT | CLI_REPEAT,
         "write the image (with several --projector: once per projector, in their order)"},
        {"--window", "DISPLAY", CLI_OPTVAL, "show it fullscreen on the X display (default: $DISPLAY)"},
        {"--hold-ms", "MS", CLI_VALUE, "close the window after MS milliseconds (default: on a key)"},
        {"--on-camera", "IMAGE", CLI_VALUE | CLI_FILE, "draw over this camera frame instead of for the projector"},
        {"--cite", NULL, 0, "under each answer, the rulebook line it comes from (or \"house value\")"},
        {NULL, NULL, 0, NULL}},
    "--on-camera --window",
    "tabletrack overlay --rig samples/breach/rig.json --projector samples/breach/projector.json --scenario "
    "samples/breach/scenario.json --query '{\"q\":\"grape\",\"from\":\"gun1\"}' --out grape.png",
};

const cli_spec cli_spec_track = {
    "track",
    "track figures live from a camera, video or image sequence",
    "--rig RIG [--source SRC]... [--scenario S] [--projector P [--window[=DISPLAY]]]... [--query Q]... [--queries FILE] [--phases FILE] "
    "[--overlay-dir DIR] [--events FILE|-] [--stats] [--preload] [--tuio HOST:PORT] [--record GAME.sqlite] [--cite] "
    "[--max-frames N] [--grace FRAMES] [--threads N] [--camera-timeout SECONDS] [--http [HOST:]PORT [--http-key KEY]] "
    "[--mqtt HOST[:PORT] --table NAME [--mqtt-user USER] [--mqtt-password-file FILE] [--mqtt-cafile FILE]]",
    "SRC is a camera (/dev/videoN), a USB camera by serial number (usb:SERIAL; 'tabletrack cameras' lists them), "
    "a video file, or an image sequence such as 'frames/*.png' (quoted). Ends at the end of the source or on "
    "Ctrl-C, with every output complete.\n"
    "A rig with several \"cameras\" takes --source once per camera, in the rig's order, or reads each camera's own "
    "\"source\" in the rig: every camera is placed by the anchors it sees (at least 4 each) and a figure seen by two "
    "is reported once. The game ends when every source has ended; a camera lost is told, naming it, while the "
    "others go on.\n"
    "With --http the table is also served: open the address it prints (table: http://HOST:PORT/?key=KEY) on a phone "
    "to set up the table and ask questions during the game; answers are drawn on the felt and recorded. The server "
    "then stays up after a file source ends, until Ctrl-C. Only 127.0.0.1 by default: give --http 0.0.0.0:8080 (or "
    "the laptop's address) for phones on the club's network. Reading needs no key; changing the game needs KEY.\n"
    "In the projector window: Esc twice ends the game, F switches full screen on and off, H hides the drawing; "
    "other keys do nothing. Closing the window keeps the game going without it.\n"
    "Several projectors on one table: give --projector once per projector, each followed by its own --window "
    "(all or none of them with a window). Each draws what falls in its own picture; where pictures overlap each "
    "one's light ramps across the overlap so the sum is even.\n"
    "With --mqtt and --table, the table publishes to a convention hall's broker under tabletrack/NAME/: its live "
    "state, events, answers, scenario and its --record recording; when the broker is away the game goes on and is "
    "recorded, and the hall catches up when it is back. At the end, track waits up to 60 s until the broker (and the "
    "hall, if one answers) holds everything; exit 1 if not, saying what is undelivered.\n"
    "With no output option, track prints what it sees once a second (frame, fps, figures seen/occluded/lost).",
    (const cli_opt[]){
        {"--rig", "RIG", CLI_VALUE | CLI_FILE, "the rig file"},
        {"--source", "SRC", CLI_VALUE | CLI_FILE | CLI_REPEAT,
         "the camera, video or image sequence; once per camera of a rig with several, in its order"},
        {"--scenario", "S", CLI_VALUE | CLI_FILE, "the scenario: which tag is which figure, for queries"},
        {"--projector", "P", CLI_VALUE | CLI_FILE | CLI_REPEAT,
         "projector.json: draw rings and answers through the projector map (once per projector)"},
        {"--window", "DISPLAY", CLI_OPTVAL | CLI_REPEAT,
         "show the projector image fullscreen (SDL2); with several --projector, one each, in their order"},
        {"--query", "Q", CLI_VALUE | CLI_REPEAT, "a rules query answered every frame, JSON"},
        {"--queries", "FILE", CLI_VALUE | CLI_FILE,
         "JSON Lines of queries with the frames to show them ({\"frame\":34,\"until\":50,\"q\":...})"},
        {"--phases", "FILE", CLI_VALUE | CLI_FILE,
         "JSON Lines of the game's phases by frame ({\"frame\":N,\"phase\":P,\"side\":S} or {\"frame\":N,\"next\":true}): "
         "the referee checks every move and counts casualties"},
        {"--overlay-dir", "DIR", CLI_VALUE | CLI_OUT,
         "write overlay_NNNNN.png per frame into DIR (several projectors: overlay_NNNNN_pK.png, K from 1)"},
        {"--events", "FILE|-", CLI_VALUE | CLI_OUT, "JSON Lines: figures per frame and moved/appeared/removed events"},
        {"--stats", NULL, 0, "print one JSON line at the end: frames, fps, latency, tracked ratio"},
        {"--preload", NULL, 0, "decode a whole video or sequence into memory first (benchmarks)"},
        {"--cite", NULL, 0, "under each answer on the felt, the rulebook line it comes from (or \"house value\")"},
        {"--tuio", "HOST:PORT", CLI_VALUE, "send TUIO 1.1 /tuio/2Dobj bundles over UDP every frame"},
        {"--record", "GAME.sqlite", CLI_VALUE | CLI_OUT, "record the game (a new session if the file exists)"},
        {"--max-frames", "N", CLI_VALUE, "stop after N frames"},
        {"--grace", "FRAMES", CLI_VALUE, "frames a hidden figure stays 'occluded' before 'lost' (default 45)"},
        {"--threads", "N", CLI_VALUE, "tracker threads (default 2)"},
        {"--camera-timeout", "SECONDS", CLI_VALUE,
         "a camera lost (unplugged, or silent for 2 s) this long ends the game cleanly (default 60); with "
         "several cameras, when every one is gone"},
        {"--http", "[HOST:]PORT", CLI_VALUE, "serve the table to phones and browsers (host default 127.0.0.1)"},
        {"--http-key", "KEY", CLI_VALUE, "the key that lets a browser change the game (default: random per run)"},
        MQTT_OPTS,
        {"--table", "NAME", CLI_VALUE, "with --mqtt: this table's name in the hall (letters, digits, - and _)"},
        {NULL, NULL, 0, NULL}},
    NULL,
    "tabletrack track --rig samples/breach/rig.json --source samples/breach/game.mp4 --events events.jsonl --stats\n"
    "tabletrack track --rig rig.json --source /dev/video0 --scenario game.json --projector projector.json --window "
    "--http 0.0.0.0:8080 --record game.sqlite\n"
    "tabletrack track --rig rig.json --source /dev/video0 --scenario game.json --record game.sqlite --mqtt "
    "hall.local --table table-07",
};

const cli_spec cli_spec_cameras = {
    "cameras",
    "list USB cameras with their serial numbers",
    "[--json]",
    "Lists USB video devices (libusb) with vendor:product, serial number, name and /dev/video node. Use "
    "--source usb:SERIAL so a table's camera stays bound to its table.",
    (const cli_opt[]){{"--json", NULL, 0, "print a JSON array instead of a table"}, {NULL, NULL, 0, NULL}},
    NULL,
    "tabletrack cameras",
};

const cli_spec cli_spec_replay = {
    "replay",
    "replay a recorded game (HTML, JSON Lines, video)",
    "GAME.sqlite [--html OUT.html] [--json] [--video OUT.mp4|OUT.avi] [--session N] [--from T] [--to T] [--fps F] "
    "[--speed X] [--width PX]\n"
    "GAME.sqlite --mqtt HOST[:PORT] --table NAME [--speed X] [--session N] [--mqtt-user USER] "
    "[--mqtt-password-file FILE] [--mqtt-cafile FILE]",
    "Makes one or more of: a self-contained HTML page (no network needed), JSON Lines on stdout, a top-down video.\n"
    "With --mqtt and --table, publishes the game to a hall's broker as table NAME would have, at its recorded pace "
    "times --speed (demos, and load tests of a hall), then waits up to 60 s until the broker (and the hall, if one "
    "answers) holds everything.",
    (const cli_opt[]){
        {"--html", "OUT.html", CLI_VALUE | CLI_OUT,
         "one self-contained page: table, terrain, figures, timeline, trails and the questions asked"},
        {"--json", NULL, 0, "the game as JSON Lines on stdout"},
        {"--video", "OUT", CLI_VALUE | CLI_OUT, "the top-down view as video (.avi: Motion-JPEG, .mp4: MPEG-4)"},
        {"--session", "N", CLI_VALUE, "which recording session (default: the latest)"},
        {"--from", "T", CLI_VALUE, "start, in seconds (75, 12.5), mm:ss or h:mm:ss from the session's start"},
        {"--to", "T", CLI_VALUE, "end, as --from"},
        {"--fps", "F", CLI_VALUE, "video frames per second (1-120, default 15)"},
        {"--speed", "X", CLI_VALUE,
         "video or --mqtt: game seconds per second (default 1; 10 for a time-lapse)"},
        {"--width", "PX", CLI_VALUE, "video width in pixels (64-7680, default 1280)"},
        MQTT_OPTS,
        {"--table", "NAME", CLI_VALUE, "with --mqtt: the table's name in the hall"},
        {NULL, NULL, 0, NULL}},
    "--mqtt --html;--mqtt --json;--mqtt --video",
    "tabletrack replay game.sqlite --html game.html\n"
    "tabletrack replay game.sqlite --mqtt localhost --table demo-1 --speed 4",
};

const cli_spec cli_spec_hall = {
    "hall",
    "gather every table's game at a convention (MQTT broker), serve the hall page",
    "--mqtt HOST[:PORT] --http [HOST:]PORT --dir DIR [--mqtt-user USER] [--mqtt-password-file FILE] "
    "[--mqtt-cafile FILE]",
    "Subscribes to every table publishing on the broker (tabletrack track ... --mqtt HOST --table NAME), keeps "
    "DIR/NAME.sqlite for each table (a recording 'tabletrack replay' reads, the same game as the table's own, "
    "frame for frame), and serves a page showing every table at http://HOST:PORT/ with GET /api/tables. A table "
    "that was away, or a hall restarted, catches up from the table's own recording. Runs until Ctrl-C.",
    (const cli_opt[]){
        MQTT_OPTS,
        {"--http", "[HOST:]PORT", CLI_VALUE, "serve the hall page (host default 127.0.0.1; 0.0.0.0 for the hall's "
                                             "network)"},
        {"--dir", "DIR", CLI_VALUE, "the folder of the tables' recordings (made if missing)"},
        {NULL, NULL, 0, NULL}},
    NULL,
    "tabletrack hall --mqtt localhost --http 0.0.0.0:8090 --dir games",
};
