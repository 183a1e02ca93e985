package main

import (
	"strings"
	"testing"
	"time"
)

func TestSiteXMLZKSessionTimeout(t *testing.T) {
	tests := []struct {
		name    string
		session time.Duration
		want    []string
		absent  []string
	}{
		{"default", 0, nil, []string{"zookeeper.session.timeout", "tickTime"}},
		{"short", 20 * time.Second, []string{
			"<name>zookeeper.session.timeout.localHBaseCluster</name><value>20000</value>",
			"<name>zookeeper.session.timeout</name><value>20000</value>",
		}, []string{"tickTime"}},
		{"beyond 20 ticks of 2s", 60 * time.Second, []string{
			"<name>zookeeper.session.timeout.localHBaseCluster</name><value>60000</value>",
			"<name>hbase.zookeeper.property.tickTime</name><value>3000</value>",
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := testConfig(t)
			c.zkSession = tt.session
			x := c.siteXML()
			for _, w := range tt.want {
				if !strings.Contains(x, w) {
					t.Errorf("hbase-site.xml lacks %s", w)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(x, a) {
					t.Errorf("hbase-site.xml sets %s", a)
				}
			}
		})
	}
	for _, bad := range []time.Duration{time.Second, time.Hour} {
		c := testConfig(t)
		c.zkSession = bad
		if c.checkZKSession() == nil {
			t.Errorf("session timeout %v accepted", bad)
		}
	}
}
