/// What `mdmconf --version` prints, and the tool version in SARIF reports.
package let mdmconfVersion = "0.1.0"
