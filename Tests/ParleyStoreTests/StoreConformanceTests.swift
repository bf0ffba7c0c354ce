import ParleyStore
import Testing

/// Runs every ``StoreConformance`` check once per store implementation in ``StoreFactory/all``,
/// each against a fresh, empty database.
@Suite("Store conformance")
struct StoreConformanceTests {
    typealias Check = @Sendable (any ParleyStore) async throws -> Void

    func run(_ factory: StoreFactory, _ check: Check) async throws {
        try await factory.withStore(check)
    }

    // MARK: Apps, queues, agents, sessions

    @Test(arguments: StoreFactory.all)
    func apps_insertFindUpdate_roundTrip(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.apps_insertFindUpdate_roundTrip)
    }

    @Test(arguments: StoreFactory.all)
    func queues_insertListUpdate_roundTripPerApp(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.queues_insertListUpdate_roundTripPerApp)
    }

    @Test(arguments: StoreFactory.all)
    func agents_insertFind_roundTripKeepingQueueOrder(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.agents_insertFind_roundTripKeepingQueueOrder)
    }

    @Test(arguments: StoreFactory.all)
    func agentEmail_differingOnlyInCase_isDuplicate(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.agentEmail_differingOnlyInCase_isDuplicate)
    }

    @Test(arguments: StoreFactory.all)
    func updateAgent_nilPasswordHash_keepsHashAndUpdatesFields(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.updateAgent_nilPasswordHash_keepsHashAndUpdatesFields)
    }

    @Test(arguments: StoreFactory.all)
    func sessions_insertFindDelete_roundTrip(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.sessions_insertFindDelete_roundTrip)
    }

    @Test(arguments: StoreFactory.all)
    func deleteSessions_agent_removesOnlyThatAgentsSessions(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.deleteSessions_agent_removesOnlyThatAgentsSessions)
    }

    // MARK: Visitors

    @Test(arguments: StoreFactory.all)
    func upsertVisitor_sameDevice_returnsSameVisitor(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.upsertVisitor_sameDevice_returnsSameVisitor)
    }

    @Test(arguments: StoreFactory.all)
    func upsertVisitor_concurrentSameDevice_returnsOneVisitor(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.upsertVisitor_concurrentSameDevice_returnsOneVisitor)
    }

    @Test(arguments: StoreFactory.all)
    func upsertVisitor_givenProfileFields_updateAndNilFieldsKeep(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.upsertVisitor_givenProfileFields_updateAndNilFieldsKeep)
    }

    @Test(arguments: StoreFactory.all)
    func upsertVisitor_sameDeviceOtherApp_isDifferentVisitor(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.upsertVisitor_sameDeviceOtherApp_isDifferentVisitor)
    }

    @Test(arguments: StoreFactory.all)
    func visitor_otherApp_isNil(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.visitor_otherApp_isNil)
    }

    @Test(arguments: StoreFactory.all)
    func verifiedVisitor_firstSignIn_makesTheUser_andTakesTheDevicesConversations(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.verifiedVisitor_firstSignIn_makesTheUser_andTakesTheDevicesConversations)
    }

    @Test(arguments: StoreFactory.all)
    func verifiedVisitor_anotherDevice_isTheSameUser_andBringsItsConversations(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.verifiedVisitor_anotherDevice_isTheSameUser_andBringsItsConversations)
    }

    @Test(arguments: StoreFactory.all)
    func verifiedVisitor_concurrentFirstSignIns_makeOneUser(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.verifiedVisitor_concurrentFirstSignIns_makeOneUser)
    }

    @Test(arguments: StoreFactory.all)
    func verifiedVisitor_unknownApp_isNotFound(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.verifiedVisitor_unknownApp_isNotFound)
    }

    @Test(arguments: StoreFactory.all)
    func revokedVisitorTokens_areRefusedUntilTheyExpire_thenForgotten(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.revokedVisitorTokens_areRefusedUntilTheyExpire_thenForgotten)
    }

    // MARK: Conversation lifecycle

    @Test(arguments: StoreFactory.all)
    func open_startsQueuedWithOpenedEventAtSeq1(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.open_startsQueuedWithOpenedEventAtSeq1)
    }

    @Test(arguments: StoreFactory.all)
    func open_existingIDOrUnknownQueue_isRejected(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.open_existingIDOrUnknownQueue_isRejected)
    }

    @Test(.bug(id: "store-open-foreign-visitor", "Regression: open accepted another app's visitor; an unknown one threw a raw DatabaseError"),
          arguments: StoreFactory.all)
    func open_visitorOfOtherAppOrUnknown_throwsNotFound(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.open_visitorOfOtherAppOrUnknown_throwsNotFound)
    }

    @Test(.bug(id: "store-assign-foreign-agent", "Regression: assign accepted another app's agent; an unknown one threw a raw DatabaseError"),
          arguments: StoreFactory.all)
    func assign_agentOfOtherAppOrUnknown_throwsNotFound(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.assign_agentOfOtherAppOrUnknown_throwsNotFound)
    }

    @Test(arguments: StoreFactory.all)
    func assign_queued_addsStateChangedAndParticipantJoinedAtSeq2And3(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.assign_queued_addsStateChangedAndParticipantJoinedAtSeq2And3)
    }

    @Test(arguments: StoreFactory.all)
    func messages_fromAssignedAgentAndVisitor_areStoredInOrder(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.messages_fromAssignedAgentAndVisitor_areStoredInOrder)
    }

    @Test(arguments: StoreFactory.all)
    func endByAgent_assigned_endsWithParticipantLeft(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.endByAgent_assigned_endsWithParticipantLeft)
    }

    @Test(arguments: StoreFactory.all)
    func endByVisitor_assigned_endsAndAgentLeaves(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.endByVisitor_assigned_endsAndAgentLeaves)
    }

    @Test(arguments: StoreFactory.all)
    func visitorMessage_intoEnded_reopensQueuedThenStoresMessage(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.visitorMessage_intoEnded_reopensQueuedThenStoresMessage)
    }

    @Test(arguments: StoreFactory.all)
    func endByVisitor_queued_isCancelled(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.endByVisitor_queued_isCancelled)
    }

    @Test(arguments: StoreFactory.all)
    func end_ended_isNoOpWithoutEvents(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.end_ended_isNoOpWithoutEvents)
    }

    @Test(arguments: StoreFactory.all)
    func agentNotAssigned_cannotPostOrEnd(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.agentNotAssigned_cannotPostOrEnd)
    }

    @Test(arguments: StoreFactory.all)
    func requeue_assigned_leavesOfflineAndStoresGivenRank(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.requeue_assigned_leavesOfflineAndStoresGivenRank)
    }

    @Test(arguments: StoreFactory.all)
    func activeConversations_listQueuedAndAssignedOfEveryApp(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.activeConversations_listQueuedAndAssignedOfEveryApp)
    }

    @Test(arguments: StoreFactory.all)
    func conversationsQuery_filtersByVisitorAgentStateNewestFirst(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.conversationsQuery_filtersByVisitorAgentStateNewestFirst)
    }

    // MARK: Idempotency

    @Test(arguments: StoreFactory.all)
    func postMessage_sameClientIDSameContent_returnsOriginalAsDuplicate(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.postMessage_sameClientIDSameContent_returnsOriginalAsDuplicate)
    }

    @Test(arguments: StoreFactory.all)
    func postMessage_sameClientIDOtherContent_throwsIdempotencyConflict(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.postMessage_sameClientIDOtherContent_throwsIdempotencyConflict)
    }

    @Test(arguments: StoreFactory.all)
    func pushDevices_registerReplaceMoveAndRemove_perAppAndVisitor(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.pushDevices_registerReplaceMoveAndRemove_perAppAndVisitor)
    }

    @Test(arguments: StoreFactory.all)
    func pushOutbox_fansOutToDevices_skipsListsAndCountsUnread(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.pushOutbox_fansOutToDevices_skipsListsAndCountsUnread)
    }

    @Test(arguments: StoreFactory.all)
    func pushPage_isIdempotentByClientID_sharedWithMessages(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.pushPage_isIdempotentByClientID_sharedWithMessages)
    }

    @Test(arguments: StoreFactory.all)
    func postMessage_concurrentResends_storeOneMessage(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.postMessage_concurrentResends_storeOneMessage)
    }

    // MARK: Scoping

    @Test(arguments: StoreFactory.all)
    func reads_otherApp_returnNothing(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.reads_otherApp_returnNothing)
    }

    @Test(arguments: StoreFactory.all)
    func commit_otherApp_throwsNotFound(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.commit_otherApp_throwsNotFound)
    }

    @Test(arguments: StoreFactory.all)
    func otherVisitor_postEndOrRead_throwsNotFound(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.otherVisitor_postEndOrRead_throwsNotFound)
    }

    @Test(.bug(id: "store-client-id-before-author", "Regression: the client message id was checked before the author"),
          arguments: StoreFactory.all)
    func otherVisitor_reusingClientMessageID_throwsNotFound(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.otherVisitor_reusingClientMessageID_throwsNotFound)
    }

    @Test(.bug(id: "store-end-ended-visitor-check", "Regression: ending an ended conversation skipped the visitor check"),
          arguments: StoreFactory.all)
    func otherVisitor_endingEnded_throwsNotFound(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.otherVisitor_endingEnded_throwsNotFound)
    }

    // MARK: Group commit and ordering

    @Test(arguments: StoreFactory.all)
    func append_concurrentSends_seqsAreGapFreeAndUnique(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.append_concurrentSends_seqsAreGapFreeAndUnique)
    }

    @Test(arguments: StoreFactory.all)
    func append_concurrentSendsToTwentyConversations_eachConversationGapFree(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.append_concurrentSendsToTwentyConversations_eachConversationGapFree)
    }

    @Test(arguments: StoreFactory.all)
    func groupCommit_failingChangesAmongConcurrentOnes_rollBackAlone(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.groupCommit_failingChangesAmongConcurrentOnes_rollBackAlone)
    }

    // MARK: History paging

    @Test(arguments: StoreFactory.all)
    func eventsAfterSeq_returnOldestFirstWindowAfterCursor(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.eventsAfterSeq_returnOldestFirstWindowAfterCursor)
    }

    @Test(arguments: StoreFactory.all)
    func eventsBeforeSeq_returnNewestWindowBeforeCursorOldestFirst(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.eventsBeforeSeq_returnNewestWindowBeforeCursorOldestFirst)
    }

    // MARK: Read markers

    @Test(arguments: StoreFactory.all)
    func markRead_storesReadEventAndReadSeq(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.markRead_storesReadEventAndReadSeq)
    }

    @Test(arguments: StoreFactory.all)
    func markRead_atOrBelowPreviousRead_isNoOp(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.markRead_atOrBelowPreviousRead_isNoOp)
    }

    @Test(arguments: StoreFactory.all)
    func markRead_seqOutOfRange_throwsInvalidState(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.markRead_seqOutOfRange_throwsInvalidState)
    }

    // MARK: Durability

    @Test(arguments: StoreFactory.all)
    func reopen_keepsEveryEventAndEpoch(_ factory: StoreFactory) async throws {
        try await factory.withDatabase { database in
            try await StoreConformance.reopen_keepsEveryEventAndEpoch(try await database.open(), reopen: database.open)
        }
    }

    @Test(arguments: StoreFactory.all)
    func epoch_freshDatabase_differs(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            try await factory.withStore { fresh in
                try await StoreConformance.epoch_freshDatabase_differs(store, fresh: fresh)
            }
        }
    }

    @Test(.bug(id: "store-close-drops-pending", "Regression: close() dropped commits still gathering in the group committer"),
          arguments: StoreFactory.all)
    func close_withCommitsPending_finishesThemFirst(_ factory: StoreFactory) async throws {
        try await factory.withDatabase { database in
            try await StoreConformance.close_withCommitsPending_finishesThemFirst(try await database.open(), reopen: database.open)
        }
    }

    @Test(arguments: StoreFactory.all)
    func close_withCommitsInFlight_keepsEveryAcknowledgedCommit(_ factory: StoreFactory) async throws {
        try await factory.withDatabase { database in
            try await StoreConformance.close_withCommitsInFlight_keepsEveryAcknowledgedCommit(try await database.open(), reopen: database.open)
        }
    }

    @Test(arguments: StoreFactory.all)
    func assignOrTransfer_toAnAgentAtCapacity_isRefusedAndChangesNothing(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.assignOrTransfer_toAnAgentAtCapacity_isRefusedAndChangesNothing)
    }

    @Test(arguments: StoreFactory.all)
    func rate_endedConversation_isStoredAndReplaced_othersRefused(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.rate_endedConversation_isStoredAndReplaced_othersRefused)
    }

    @Test(arguments: StoreFactory.all)
    func settings_storedPerAppAndKey_replacedAndDeleted(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.settings_storedPerAppAndKey_replacedAndDeleted)
    }

    @Test(arguments: StoreFactory.all)
    func assignment_recordsHowLongTheConversationWaited(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.assignment_recordsHowLongTheConversationWaited)
    }

    @Test(arguments: StoreFactory.all)
    func mailOutbox_claimedOnceWhileLeased_attemptsRecorded(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.mailOutbox_claimedOnceWhileLeased_attemptsRecorded)
    }

    // MARK: Operations: schema and shared secrets

    @Test(arguments: StoreFactory.all)
    func appliedMigrations_listsEveryMigrationInOrder(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.appliedMigrations_listsEveryMigrationInOrder)
    }

    @Test(arguments: StoreFactory.all)
    func sharedSecret_firstProposalWins_forEveryProcessOnTheDatabase(_ factory: StoreFactory) async throws {
        try await factory.withDatabase { database in
            try await StoreConformance.sharedSecret_firstProposalWins_forEveryProcessOnTheDatabase(open: database.open)
        }
    }

    // MARK: Desk: transfers, internal notes, canned responses

    @Test(arguments: StoreFactory.all)
    func transfer_toAgent_storesLeftChangedJoined_andReassigns(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.transfer_toAgent_storesLeftChangedJoined_andReassigns)
    }

    @Test(arguments: StoreFactory.all)
    func transfer_toQueue_requeuesInThatQueueAtTheRank(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.transfer_toQueue_requeuesInThatQueueAtTheRank)
    }

    @Test(arguments: StoreFactory.all)
    func transfer_refusals_changeNothing(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.transfer_refusals_changeNothing)
    }

    @Test(arguments: StoreFactory.all)
    func notes_numberedPerConversation_idempotent_andOutsideTheEvents(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.notes_numberedPerConversation_idempotent_andOutsideTheEvents)
    }

    @Test(arguments: StoreFactory.all)
    func cannedResponses_crudByApp_withUniqueShortcuts(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.cannedResponses_crudByApp_withUniqueShortcuts)
    }
}

extension StoreConformanceTests {
    // MARK: The commit's answer and its side effects

    @Test(arguments: StoreFactory.all)
    func outbox_rowsStoredWithTheirCommit_only(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.outbox_rowsStoredWithTheirCommit_only)
    }

    @Test(arguments: StoreFactory.all)
    func commit_reportsRankAndMoves(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.commit_reportsRankAndMoves)
    }

    // MARK: Webhooks and outbox delivery

    @Test(arguments: StoreFactory.all)
    func webhookOutbox_fansOutClaimsInOrder_recordsHoldsAndResends(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.webhookOutbox_fansOutClaimsInOrder_recordsHoldsAndResends)
    }
}

extension StoreConformanceTests {
    // MARK: Search

    @Test(arguments: StoreFactory.all)
    func searchMessages_foldedPrefixesOfEveryTerm_onlyInTheApp(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.searchMessages_foldedPrefixesOfEveryTerm_onlyInTheApp)
    }

    @Test(arguments: StoreFactory.all)
    func searchMessages_filtersByQueueAgentDateAndRating(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.searchMessages_filtersByQueueAgentDateAndRating)
    }

    @Test(arguments: StoreFactory.all)
    func searchConversations_visitorFieldsIdSubjectAttributes_newestFirstPaged(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.searchConversations_visitorFieldsIdSubjectAttributes_newestFirstPaged)
    }
}

extension StoreConformanceTests {
    // MARK: Triage

    @Test(arguments: StoreFactory.all)
    func triage_updatesFieldsGiven_refusesOtherApps_andTooManyTags(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.triage_updatesFieldsGiven_refusesOtherApps_andTooManyTags)
    }

    @Test(arguments: StoreFactory.all)
    func openConversations_carryTriageUnreadAndWaitingSince(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.openConversations_carryTriageUnreadAndWaitingSince)
    }

    @Test(arguments: StoreFactory.all)
    func conversations_filterByQueueTagPriority_andPageByKeyset(_ factory: StoreFactory) async throws {
        try await run(factory, StoreConformance.conversations_filterByQueueTagPriority_andPageByKeyset)
    }
}
