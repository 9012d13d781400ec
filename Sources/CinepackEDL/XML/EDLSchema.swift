// GENERATED from spec/edl.rng, byte for byte: do not edit here. After changing spec/edl.rng run
//   CINEPACK_UPDATE_SCHEMA=1 swift test --filter EDLSchemaTests
// (EDLSchemaTests fails while the two differ.)

extension EditDecisionList {
    /// The normative RELAX NG schema of the EDL (spec/edl.rng), embedded so reading needs no file.
    package static let relaxNGSchema = #"""
        <?xml version="1.0" encoding="UTF-8"?>
        <!--
          The cinepack edit-decision list, version 1: normative RELAX NG schema (XML syntax).
          spec/edl.md explains every element and attribute and adds the rules a schema cannot say
          (frames agree with times, ranges lie inside the media, ...). This file is embedded byte for
          byte in Sources/CinepackEDL/XML/EDLSchema.swift; a test keeps the two identical.
          Any RELAX NG validator checks a file against it, e.g. xmllint with its relaxng option.
        -->
        <grammar xmlns="http://relaxng.org/ns/structure/1.0"
                 ns="urn:cinepack:edl:1"
                 datatypeLibrary="http://www.w3.org/2001/XMLSchema-datatypes">

          <!-- §2: the root; its children in this order, each optional. -->
          <start>
            <element name="edl">
              <ref name="version"/>
              <ref name="body"/>
              <optional>
                <ref name="history"/>
              </optional>
              <optional>
                <ref name="extensions"/>
              </optional>
            </element>
          </start>

          <define name="version">
            <attribute name="version">
              <value type="string">1</value>
            </attribute>
          </define>

          <!-- Everything an EDL says except its history; shared by the root and history steps (§8). -->
          <define name="body">
            <optional>
              <ref name="media"/>
            </optional>
            <optional>
              <ref name="aperture"/>
            </optional>
            <optional>
              <ref name="decisions"/>
            </optional>
            <optional>
              <ref name="tracks"/>
            </optional>
            <optional>
              <ref name="timeline"/>
            </optional>
          </define>

          <!-- §3 -->
          <define name="media">
            <element name="media">
              <attribute name="frames">
                <ref name="count"/>
              </attribute>
              <attribute name="rate">
                <ref name="rate"/>
              </attribute>
              <attribute name="fingerprint">
                <data type="string">
                  <param name="pattern">[0-9a-f]{8,128}</param>
                </data>
              </attribute>
            </element>
          </define>

          <!-- §4 -->
          <define name="aperture">
            <element name="aperture">
              <optional>
                <attribute name="f-number">
                  <ref name="number"/>
                </attribute>
              </optional>
              <optional>
                <attribute name="blades">
                  <ref name="count"/>
                </attribute>
              </optional>
              <optional>
                <attribute name="blade-rotation">
                  <ref name="number"/>
                </attribute>
              </optional>
              <optional>
                <attribute name="blade-curvature">
                  <ref name="number"/>
                </attribute>
              </optional>
              <optional>
                <attribute name="anamorphic">
                  <ref name="number"/>
                </attribute>
              </optional>
              <optional>
                <attribute name="highlight-threshold">
                  <ref name="number"/>
                </attribute>
              </optional>
              <optional>
                <attribute name="highlight-gain">
                  <ref name="number"/>
                </attribute>
              </optional>
              <optional>
                <attribute name="cat-eye">
                  <ref name="number"/>
                </attribute>
              </optional>
              <optional>
                <attribute name="kernel">
                  <data type="string">
                    <param name="minLength">1</param>
                  </data>
                </attribute>
              </optional>
            </element>
          </define>

          <!-- §5 -->
          <define name="decisions">
            <element name="decisions">
              <zeroOrMore>
                <ref name="decision"/>
              </zeroOrMore>
            </element>
          </define>

          <define name="decision">
            <element name="decision">
              <attribute name="time">
                <ref name="time"/>
              </attribute>
              <attribute name="frame">
                <ref name="count"/>
              </attribute>
              <attribute name="strength">
                <choice>
                  <value type="string">weak</value>
                  <value type="string">strong</value>
                </choice>
              </attribute>
              <optional>
                <attribute name="min-transition">
                  <ref name="number"/>
                </attribute>
              </optional>
              <optional>
                <attribute name="max-transition">
                  <ref name="number"/>
                </attribute>
              </optional>
              <ref name="target"/>
            </element>
          </define>

          <define name="target">
            <choice>
              <element name="detection">
                <attribute name="id">
                  <ref name="id"/>
                </attribute>
              </element>
              <element name="group">
                <attribute name="id">
                  <ref name="id"/>
                </attribute>
              </element>
              <element name="disparity">
                <attribute name="value">
                  <ref name="number"/>
                </attribute>
              </element>
              <element name="point">
                <attribute name="x">
                  <ref name="number"/>
                </attribute>
                <attribute name="y">
                  <ref name="number"/>
                </attribute>
              </element>
            </choice>
          </define>

          <!-- §6 -->
          <define name="tracks">
            <element name="tracks">
              <zeroOrMore>
                <element name="track">
                  <attribute name="id">
                    <ref name="id"/>
                  </attribute>
                  <attribute name="kind">
                    <choice>
                      <value type="string">custom</value>
                      <value type="string">fixed</value>
                    </choice>
                  </attribute>
                  <oneOrMore>
                    <element name="sample">
                      <attribute name="frame">
                        <ref name="count"/>
                      </attribute>
                      <attribute name="x">
                        <ref name="number"/>
                      </attribute>
                      <attribute name="y">
                        <ref name="number"/>
                      </attribute>
                      <attribute name="w">
                        <ref name="number"/>
                      </attribute>
                      <attribute name="h">
                        <ref name="number"/>
                      </attribute>
                      <attribute name="disparity">
                        <ref name="number"/>
                      </attribute>
                    </element>
                  </oneOrMore>
                </element>
              </zeroOrMore>
            </element>
          </define>

          <!-- §7: trims first, then speed changes. -->
          <define name="timeline">
            <element name="timeline">
              <zeroOrMore>
                <element name="range">
                  <attribute name="start">
                    <ref name="time"/>
                  </attribute>
                  <attribute name="end">
                    <ref name="time"/>
                  </attribute>
                </element>
              </zeroOrMore>
              <zeroOrMore>
                <element name="speed">
                  <attribute name="start">
                    <ref name="time"/>
                  </attribute>
                  <attribute name="end">
                    <ref name="time"/>
                  </attribute>
                  <attribute name="rate">
                    <data type="string">
                      <param name="pattern">[1-9][0-9]{0,18}/[1-9][0-9]{0,18}</param>
                    </data>
                  </attribute>
                </element>
              </zeroOrMore>
            </element>
          </define>

          <!-- §8: each undo step holds the whole previous EDL, which has no history of its own; each
               redo step (after the undo steps) the whole EDL as it was after its step. -->
          <define name="history">
            <element name="history">
              <zeroOrMore>
                <element name="step">
                  <ref name="step"/>
                </element>
              </zeroOrMore>
              <zeroOrMore>
                <element name="redo">
                  <ref name="step"/>
                </element>
              </zeroOrMore>
            </element>
          </define>

          <define name="step">
            <attribute name="description">
              <data type="string"/>
            </attribute>
            <element name="edl">
              <ref name="version"/>
              <ref name="body"/>
              <optional>
                <ref name="extensions"/>
              </optional>
            </element>
          </define>

          <!-- §9: other tools' data. Foreign elements sit in one container, so that the rest of the
               document keeps a deterministic content model (and validators give precise messages). -->
          <define name="extensions">
            <element name="extensions">
              <zeroOrMore>
                <ref name="foreign"/>
              </zeroOrMore>
            </element>
          </define>

          <!-- An element in any namespace but ours (and not in no namespace), with any content. -->
          <define name="foreign">
            <element>
              <anyName>
                <except>
                  <nsName ns="urn:cinepack:edl:1"/>
                  <nsName ns=""/>
                </except>
              </anyName>
              <ref name="anything"/>
            </element>
          </define>

          <define name="anything">
            <zeroOrMore>
              <choice>
                <attribute>
                  <anyName/>
                </attribute>
                <text/>
                <element>
                  <anyName/>
                  <ref name="anything"/>
                </element>
              </choice>
            </zeroOrMore>
          </define>

          <!-- §10: value syntax. Strings with patterns, so no whitespace or other spelling slips through. -->
          <define name="count">
            <data type="string">
              <param name="pattern">0|[1-9][0-9]{0,18}</param>
            </data>
          </define>

          <define name="id">
            <data type="string">
              <param name="pattern">0|[1-9][0-9]{0,9}</param>
            </data>
          </define>

          <define name="time">
            <data type="string">
              <param name="pattern">(0|[1-9][0-9]{0,18})(/[1-9][0-9]{0,9})?s</param>
            </data>
          </define>

          <define name="rate">
            <data type="string">
              <param name="pattern">[1-9][0-9]{0,9}/[1-9][0-9]{0,9}</param>
            </data>
          </define>

          <define name="number">
            <data type="string">
              <param name="pattern">-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+\-]?[0-9]+)?</param>
            </data>
          </define>

        </grammar>

        """#
}
