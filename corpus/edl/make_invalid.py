#!/usr/bin/env python3
"""Writes corpus/edl/invalid/*.xml: each file breaks one rule of spec/edl.md on top of an
otherwise valid EDL. Plain string building, no cinepack code, so the files are an independent
expectation. Run from anywhere: python3 corpus/edl/make_invalid.py (corpus/edl/README.md lists
every file with the error it must produce)."""
import os
HERE = os.path.dirname(os.path.abspath(__file__))
HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'
NS = 'xmlns="urn:cinepack:edl:1"'
MEDIA = '  <media frames="180" rate="30/1" fingerprint="0123456789abcdef"/>\n'
NTSC = '  <media frames="900" rate="30000/1001" fingerprint="0123456789abcdef"/>\n'

def doc(body, media=MEDIA):
    return HEAD + f'<edl {NS} version="1">\n' + media + body + '</edl>\n'

def decision(attrs, target='<detection id="4"/>'):
    return f'  <decisions>\n    <decision {attrs}>\n      {target}\n    </decision>\n  </decisions>\n'

invalid = {}
def inv(name, text, how):
    invalid[name] = (text if isinstance(text, bytes) else text.encode(), how)

inv('empty.xml', b'', 'an empty file')
inv('not-well-formed.xml', doc('  <decisions>\n    <decision time="1s" frame="30" strength="weak">\n      <detection id="4"/>\n  </decisions>\n'), '`</decision>` left out')
inv('doctype.xml', HEAD + '<!DOCTYPE edl>\n' + f'<edl {NS} version="1"/>\n', 'a bare `<!DOCTYPE edl>`')
inv('xxe-local-file.xml', HEAD + '<!DOCTYPE edl [\n  <!ENTITY xxe SYSTEM "file:///etc/passwd">\n]>\n' + f'<edl {NS} version="1">\n  <extensions><x:leak xmlns:x="urn:x">&xxe;</x:leak></extensions>\n</edl>\n', 'external entity pointing at /etc/passwd, used in an extension')
laughs = HEAD + '<!DOCTYPE edl [\n  <!ENTITY lol "lol">\n'
prev = 'lol'
for i in range(1, 10):
    laughs += f'  <!ENTITY lol{i} "' + ('&' + prev + ';') * 10 + '">\n'
    prev = f'lol{i}'
laughs += ']>\n' + f'<edl {NS} version="1">\n  <extensions><x:l xmlns:x="urn:x">&lol9;</x:l></extensions>\n</edl>\n'
inv('billion-laughs.xml', laughs, 'the classic 10⁹-fold entity expansion (`lol1`…`lol9`)')
inv('undefined-entity.xml', HEAD + f'<edl {NS} version="1">\n  <extensions><x:e xmlns:x="urn:x">&xxe;</x:e></extensions>\n</edl>\n', '`&xxe;` with no DOCTYPE')
inv('undeclared-prefix.xml', HEAD + f'<edl {NS} version="1">\n  <extensions><x:e/></extensions>\n</edl>\n', 'prefix `x` never declared')
inv('xml-1.1.xml', '<?xml version="1.1" encoding="UTF-8"?>\n' + f'<edl {NS} version="1"/>\n', 'XML declaration `version="1.1"`')
inv('latin1.xml', '<?xml version="1.0" encoding="ISO-8859-1"?>\n'.encode() + f'<edl {NS} version="1"/>\n'.encode(), 'ASCII content but declares ISO-8859-1')
inv('utf16.xml', (f'<edl {NS} version="1"/>\n').encode('utf-16'), 'the empty EDL encoded as UTF-16 with a BOM (Python `encode("utf-16")`)')
inv('bad-utf8.xml', HEAD.encode() + f'<edl {NS} version="1">\n  <history>\n    <step description="caf'.encode() + b'\xe9' + b'">\n      <edl version="1"/>\n    </step>\n  </history>\n</edl>\n', 'a Latin-1 byte 0xE9 inside a description')
deep = HEAD + f'<edl {NS} version="1">\n  <extensions>\n' + '<x:n xmlns:x="urn:x">' + '<x:n>' * 63 + '</x:n>' * 63 + '</x:n>\n  </extensions>\n</edl>\n'
inv('nested-66-deep.xml', deep, 'foreign elements nested so that the deepest is at depth 66 (edl 1, extensions 2, 64 `x:n`)')
inv('wrong-namespace.xml', HEAD + '<edl xmlns="urn:example:wrong" version="1"/>\n', 'root in `urn:example:wrong`')
inv('no-namespace.xml', HEAD + '<edl version="1"/>\n', 'root without xmlns')
inv('wrong-root.xml', HEAD + '<fcpxml version="1.10"/>\n', 'an FCPXML root')
inv('version-2.xml', HEAD + f'<edl {NS} version="2"/>\n', '`version="2"`')
inv('no-version.xml', HEAD + f'<edl {NS}/>\n', 'root without `version`')
inv('missing-strength.xml', doc(decision('time="1s" frame="30"')), '`strength` left out')
inv('strength-medium.xml', doc(decision('time="1s" frame="30" strength="medium"')), '`strength="medium"`')
inv('decimal-time.xml', doc(decision('time="12.3s" frame="369" strength="weak"'), NTSC), 'time in decimal seconds')
inv('leading-zero-frame.xml', doc(decision('time="1s" frame="030" strength="weak"')), '`frame="030"`')
inv('two-targets.xml', doc(decision('time="1s" frame="30" strength="weak"', '<detection id="4"/><group id="2"/>')), 'a detection and a group in one decision')
inv('no-target.xml', doc('  <decisions>\n    <decision time="1s" frame="30" strength="weak"/>\n  </decisions>\n'), 'a decision without a target')
inv('aperture-after-decisions.xml', doc(decision('time="1s" frame="30" strength="weak"') + '  <aperture f-number="2.8"/>\n'), '`<aperture>` after `<decisions>`')
inv('two-apertures.xml', doc('  <aperture f-number="2.8"/>\n  <aperture f-number="4.0"/>\n'), '`<aperture>` twice')
inv('foreign-outside-extensions.xml', doc('  <x:ext xmlns:x="urn:x"/>\n'), 'a foreign element directly in `<edl>`')
inv('unknown-element.xml', doc('  <focus/>\n'), '`<focus>` in the EDL namespace')
inv('unknown-attribute.xml', doc('  <tracks>\n    <track id="1000000" kind="custom" color="red">\n      <sample frame="1" x="0" y="0" w="1" h="1" disparity="1"/>\n    </track>\n  </tracks>\n'), '`color` on `<track>`')
inv('foreign-attribute.xml', doc('  <aperture xmlns:x="urn:x" x:note="hi" f-number="2.8"/>\n'), 'an attribute in another namespace on `<aperture>`')
inv('text-in-decisions.xml', doc('  <decisions>hello</decisions>\n'), 'text inside `<decisions>`')
inv('range-after-speed.xml', doc('  <timeline>\n    <speed start="0s" end="1s" rate="2/1"/>\n    <range start="0s" end="2s"/>\n  </timeline>\n'), '`<range>` after `<speed>`')
inv('empty-track.xml', doc('  <tracks>\n    <track id="1000000" kind="fixed"/>\n  </tracks>\n'), 'a track without samples')
inv('fingerprint-uppercase.xml', doc('', '  <media frames="180" rate="30/1" fingerprint="0123456789ABCDEF"/>\n'), 'upper-case hex')
inv('rate-decimal.xml', doc('', '  <media frames="180" rate="29.97" fingerprint="0123456789abcdef"/>\n'), '`rate="29.97"`')
inv('history-in-history.xml', doc('  <history>\n    <step description="a">\n      <edl version="1">\n        <history/>\n      </edl>\n    </step>\n  </history>\n'), 'a step whose EDL has `<history>`')
inv('step-without-edl.xml', doc('  <history>\n    <step description="a"/>\n  </history>\n'), 'a step with no `<edl>`')
inv('edl-element-in-extensions.xml', doc('  <extensions>\n    <aperture f-number="2"/>\n  </extensions>\n'), 'an EDL-namespace element inside `<extensions>`')
inv('unqualified-in-extensions.xml', doc('  <extensions>\n    <x:ext xmlns:x="urn:x"><plain xmlns=""/></x:ext>\n  </extensions>\n'), '`xmlns=""` inside a foreign element')
inv('relative-namespace.xml', doc('  <extensions>\n    <x:ext xmlns:x="notes/v1"/>\n  </extensions>\n'), 'a foreign element whose namespace URI is relative')
# Rules (§10 ranges, §11)
inv('float-overflow.xml', doc('  <aperture f-number="1e39"/>\n'), '`f-number="1e39"`, beyond binary32')
inv('id-overflow.xml', doc(decision('time="1s" frame="30" strength="weak"', '<detection id="4294967296"/>')), 'id 2³²')
inv('time-value-overflow.xml', doc(decision('time="9999999999999999999s" frame="30" strength="weak"')), 'a 19-digit time beyond Int64')
inv('timescale-overflow.xml', doc(decision('time="1/4294967296s" frame="30" strength="weak"')), 'timescale 2³²')
inv('media-zero-frames.xml', doc('', '  <media frames="0" rate="30/1" fingerprint="0123456789abcdef"/>\n'), '`frames="0"`')
inv('f-number-zero.xml', doc('  <aperture f-number="0"/>\n'), '`f-number="0"`')
inv('decision-without-media.xml', HEAD + f'<edl {NS} version="1">\n' + decision('time="1s" frame="30" strength="weak"') + '</edl>\n', 'a decision and no `<media>`')
inv('time-off-grid.xml', doc(decision('time="123/10s" frame="369" strength="weak"'), NTSC), '12.3 s at 29.97 fps (not on the frame grid, spec/time.md §3)')
inv('frame-disagrees.xml', doc(decision('time="369369/30000s" frame="368" strength="weak"'), NTSC), 'frame 368 for the time of frame 369')
inv('frame-past-end.xml', doc(decision('time="6s" frame="180" strength="weak"')), 'frame 180 of a 180-frame clip')
inv('decisions-out-of-order.xml', doc('  <decisions>\n    <decision time="2s" frame="60" strength="weak">\n      <detection id="4"/>\n    </decision>\n    <decision time="1s" frame="30" strength="weak">\n      <detection id="5"/>\n    </decision>\n  </decisions>\n'), 'second decision earlier than the first')
inv('same-frame-twice.xml', doc('  <decisions>\n    <decision time="1s" frame="30" strength="weak">\n      <detection id="4"/>\n    </decision>\n    <decision time="30/30s" frame="30" strength="strong">\n      <detection id="5"/>\n    </decision>\n  </decisions>\n'), 'two decisions at 1 s, written differently')
inv('min-over-max-transition.xml', doc(decision('time="1s" frame="30" strength="weak" min-transition="2" max-transition="1"')), 'min-transition 2 > max-transition 1')
inv('zero-transition.xml', doc(decision('time="1s" frame="30" strength="weak" min-transition="0"')), '`min-transition="0"`')
inv('detection-zero.xml', doc(decision('time="1s" frame="30" strength="weak"', '<detection id="0"/>')), 'detection id 0')
inv('group-zero.xml', doc(decision('time="1s" frame="30" strength="weak"', '<group id="0"/>')), 'group id 0')
inv('unknown-user-track.xml', doc(decision('time="1s" frame="30" strength="weak"', '<detection id="1000001"/>')), 'a user-track id with no `<track>`')
inv('negative-disparity.xml', doc(decision('time="1s" frame="30" strength="weak"', '<disparity value="-1"/>')), '`<disparity value="-1"/>`')
inv('point-outside.xml', doc(decision('time="1s" frame="30" strength="weak"', '<point x="1.5" y="0.5"/>')), 'x = 1.5')
TR = lambda tracks: '  <tracks>\n' + tracks + '  </tracks>\n'
S = lambda f, x='0.1', y='0.1', w='0.2', h='0.2', d='1': f'      <sample frame="{f}" x="{x}" y="{y}" w="{w}" h="{h}" disparity="{d}"/>\n'
inv('track-id-below-million.xml', doc(TR('    <track id="5" kind="custom">\n' + S(1) + '    </track>\n')), 'track id 5')
inv('duplicate-track-id.xml', doc(TR('    <track id="1000000" kind="custom">\n' + S(1) + '    </track>\n    <track id="1000000" kind="fixed">\n' + S(2) + '    </track>\n')), 'id 1000000 twice')
inv('sample-past-end.xml', doc(TR('    <track id="1000000" kind="custom">\n' + S(180) + '    </track>\n')), 'sample at frame 180 of 180')
inv('samples-out-of-order.xml', doc(TR('    <track id="1000000" kind="custom">\n' + S(12) + S(12) + '    </track>\n')), 'frame 12 twice')
inv('rect-outside.xml', doc(TR('    <track id="1000000" kind="custom">\n' + S(1, x='0.75', y='0', w='0.5', h='0.5') + '    </track>\n')), 'x + w = 1.25')
inv('rect-zero-width.xml', doc(TR('    <track id="1000000" kind="custom">\n' + S(1, w='0') + '    </track>\n')), 'w = 0')
inv('sample-negative-disparity.xml', doc(TR('    <track id="1000000" kind="custom">\n' + S(1, d='-1') + '    </track>\n')), 'disparity −1')
TL = lambda items: '  <timeline>\n' + items + '  </timeline>\n'
inv('range-start-after-end.xml', doc(TL('    <range start="2s" end="1s"/>\n')), 'start 2 s, end 1 s')
inv('range-past-media.xml', doc(TL('    <range start="0s" end="7s"/>\n')), 'end 7 s of a 6 s clip')
inv('range-off-grid.xml', doc(TL('    <range start="1/60s" end="1s"/>\n')), 'start half-way through frame 0')
inv('speed-overlap.xml', doc(TL('    <speed start="0s" end="2s" rate="2/1"/>\n    <speed start="1s" end="3s" rate="1/2"/>\n')), 'second segment starts inside the first')
inv('speed-rate-zero.xml', doc(TL('    <speed start="0s" end="2s" rate="0/1"/>\n')), '`rate="0/1"`')
inv('history-step-invalid.xml', doc('  <history>\n    <step description="before">\n      <edl version="1">\n' + '  ' * 3 + '<media frames="180" rate="30/1" fingerprint="0123456789abcdef"/>\n        <decisions>\n          <decision time="1s" frame="31" strength="weak">\n            <detection id="4"/>\n          </decision>\n        </decisions>\n      </edl>\n    </step>\n  </history>\n'), 'a step whose decision has the wrong frame')
inv('description-too-long.xml', doc('  <history>\n    <step description="' + 'x' * 1025 + '">\n      <edl version="1"/>\n    </step>\n  </history>\n'), 'a 1025-character description')

for name, (data, how) in invalid.items():
    with open(os.path.join(HERE, 'invalid', name), 'wb') as f:
        f.write(data)
print(f'wrote {len(invalid)} files to {os.path.join(HERE, "invalid")}')
